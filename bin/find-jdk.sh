#!/usr/bin/env bash
# Sourced by ./warden and .ci/run: exports JAVA_HOME pointing at a JDK 21 or newer.
# $JAVA_HOME wins when it is 21+; otherwise the newest of the `java` on PATH and the JDKs under the usual roots.
# Fails with a clear message when no JDK 21+ is found.

warden_jdk_major() {
  local javabin="$1/bin/java"
  [[ -x "$javabin" && -x "$1/bin/javac" ]] || { echo 0; return; }
  local v
  v=$("$javabin" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}')
  v=${v%%.*}
  [[ "$v" =~ ^[0-9]+$ ]] && echo "$v" || echo 0
}

warden_find_jdk() {
  local min=21 candidates=() c best="" best_major=0 m
  # An explicit choice wins when it is good enough.
  if [[ -n "${JAVA_HOME:-}" ]] && (( $(warden_jdk_major "$JAVA_HOME") >= min )); then
    export PATH="$JAVA_HOME/bin:$PATH"; return 0
  fi
  if command -v java >/dev/null 2>&1; then
    c=$(readlink -f "$(command -v java)"); candidates+=("${c%/bin/java}")
  fi
  for c in /usr/lib/jvm/* /opt/java/* /opt/jdk* /usr/local/lib/jvm/* "$HOME"/.sdkman/candidates/java/*; do
    [[ -d "$c" ]] && candidates+=("$c")
  done
  for c in "${candidates[@]}"; do
    m=$(warden_jdk_major "$c")
    if (( m >= min && m > best_major )); then best="$c"; best_major=$m; fi
  done
  if [[ -z "$best" ]]; then
    echo "warden: no JDK $min or newer found (looked at \$JAVA_HOME, the java on PATH and /usr/lib/jvm)." >&2
    echo "warden: install one (e.g. 'apt-get install openjdk-21-jdk-headless' or Temurin 21+) or set JAVA_HOME." >&2
    return 1
  fi
  export JAVA_HOME="$best"
  export PATH="$JAVA_HOME/bin:$PATH"
}

warden_find_jdk
