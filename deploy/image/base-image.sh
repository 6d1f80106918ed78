#!/usr/bin/env bash
# Builds the Jib base image without Docker or a registry: deploy/image/.build/warden-base.tar, a
# docker-archive (what `docker save` writes) tagged warden-base:local. Usage, as root:
#   deploy/image/base-image.sh [--refresh]
# Layer 1 is a Debian bookworm minbase root filesystem made with debootstrap from this machine's apt
# mirror, plus ca-certificates and tzdata, with the security and point-release updates applied, and the
# user warden (uid/gid 1000, home /home/warden). Layer 2 is a JRE that jlink makes from the JDK
# bin/find-jdk.sh picks, installed at /opt/java/openjdk. The image runs as 1000:1000 in /home/warden.
# The rootfs and the JRE are cached under deploy/image/.build/; --refresh rebuilds the rootfs (for new
# Debian updates). Layer tars are written with fixed mtimes and numeric owners, so an unchanged cache
# gives the same diff_ids and Jib reuses its cached base layers.
# Feed it to Jib with -Djib.from.image=tar://$PWD/deploy/image/.build/warden-base.tar.
# Env: WARDEN_DEBIAN_MIRROR, WARDEN_DEBIAN_SECURITY_MIRROR (default: this machine's apt sources),
#      WARDEN_JRE_MODULES (comma-separated; default: the list below, less modules the JDK lacks).
set -euo pipefail
cd "$(dirname "$0")/../.."
export LC_ALL=C

if [[ $(id -u) -ne 0 ]]; then
  echo "base-image: must run as root (debootstrap, chroot and root-owned files in the layers need it)." >&2
  echo "base-image: try: sudo $0 $*" >&2
  exit 1
fi
refresh=0
for a in "$@"; do
  case "$a" in
    --refresh) refresh=1 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "base-image: unknown argument: $a" >&2; exit 2 ;;
  esac
done

suite=bookworm
packages=ca-certificates,tzdata
modules_wanted=${WARDEN_JRE_MODULES:-java.se,jdk.crypto.ec,jdk.unsupported,jdk.management,jdk.jfr,jdk.zipfs,jdk.naming.dns,jdk.localedata,jdk.httpserver,jdk.net,jdk.management.agent,jdk.jcmd}
epoch=1                                   # file mtimes and "created": 1970-01-01T00:00:01Z, as Jib does
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
java_home=/opt/java/openjdk
path_env="PATH=$java_home/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

build="$PWD/deploy/image/.build"
rootfs="$build/rootfs"
out="$build/warden-base.tar"
mkdir -p "$build"
t0=$SECONDS
log() { printf 'base-image [%3ds] %s\n' $((SECONDS - t0)) "$*" >&2; }

# --- tools --------------------------------------------------------------------------------------------
if ! command -v debootstrap >/dev/null 2>&1; then
  log "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null \
    || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null; }
fi
for tool in tar sha256sum unshare chroot findmnt; do
  command -v "$tool" >/dev/null 2>&1 || { echo "base-image: $tool not found" >&2; exit 1; }
done

# Refuse to delete or archive anything that has something mounted below it.
assert_unmounted() {
  if findmnt -rn -o TARGET | awk -v d="$1" 'index($0, d "/") == 1 || $0 == d' | grep -q .; then
    echo "base-image: something is mounted under $1; unmount it first (findmnt | grep $1)." >&2
    exit 1
  fi
}

# --- mirrors: the first bookworm / bookworm-security URIs in this machine's apt sources ------------------
# Prints the first URI whose suites include $1 (one-line .list entries and deb822 .sources stanzas).
apt_uri_for_suite() {
  local want="$1" f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    awk -v want="$want" '
      function flush() { if (types ~ /(^|[ \t])deb([ \t]|$)/ && (" " suites " ") ~ (" " want " ") && uri != "") { print uri; found = 1; exit } types = suites = uri = "" }
      /^[ \t]*#/ { next }
      /^[ \t]*deb[ \t]/ { n = split($0, w, /[ \t]+/); i = 2; if (w[1] == "") i = 3; if (w[i] ~ /^\[/) { while (i <= n && w[i] !~ /\]$/) i++; i++ } if (w[i + 1] == want) { print w[i]; found = 1; exit } next }
      /^[ \t]*$/ { flush(); next }
      /^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0; next }
      /^URIs:/ { sub(/^URIs:[ \t]*/, ""); split($0, u, /[ \t]+/); uri = u[1]; next }
      /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0; next }
      END { if (!found) flush() }' "$f" | head -n1 | grep . && return 0
  done
  return 1
}
mirror=${WARDEN_DEBIAN_MIRROR:-$(apt_uri_for_suite "$suite" || true)}
security_mirror=${WARDEN_DEBIAN_SECURITY_MIRROR:-$(apt_uri_for_suite "$suite-security" || true)}
if [[ -z "$mirror" ]]; then
  echo "base-image: no '$suite' entry in /etc/apt/sources.list*; set WARDEN_DEBIAN_MIRROR to the URL of a Debian mirror." >&2
  exit 1
fi
mirror=${mirror%/}; security_mirror=${security_mirror%/}
arch=$(dpkg --print-architecture)

# --- layer 1 source: the debootstrap rootfs (cached) -------------------------------------------------------
# Bump the recipe version when the steps below change, so cached rootfs trees get rebuilt.
rootfs_key="recipe=4 suite=$suite arch=$arch mirror=$mirror security=$security_mirror packages=$packages"
if [[ $refresh -eq 1 || ! -f "$build/rootfs.stamp" || "$(cat "$build/rootfs.stamp")" != "$rootfs_key" ]]; then
  log "debootstrap --variant=minbase $suite from $mirror (cold: a few minutes)"
  for d in "$rootfs" "$rootfs.tmp"; do assert_unmounted "$d"; done
  rm -rf --one-file-system "$rootfs.tmp" "$build/rootfs.stamp"
  mkdir -p "$build/debs"
  # A private mount namespace: whatever debootstrap or apt mount inside the tree vanishes with it,
  # even when interrupted.
  unshare --mount --propagation private -- \
    debootstrap --variant=minbase --include="$packages" --arch="$arch" --cache-dir="$build/debs" \
      "$suite" "$rootfs.tmp" "$mirror" >"$build/debootstrap.log" 2>&1 \
    || { tail -n 30 "$build/debootstrap.log" >&2; echo "base-image: debootstrap failed; full log: $build/debootstrap.log" >&2; exit 1; }

  # apt sources for the image itself, then the point-release and security updates.
  rm -f "$rootfs.tmp/etc/apt/sources.list"
  {
    printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$mirror" "$suite" "$suite"
    if [[ -n "$security_mirror" ]]; then
      printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$security_mirror" "$suite"
    fi
  } >"$rootfs.tmp/etc/apt/sources.list.d/debian.sources"
  cp /etc/resolv.conf "$rootfs.tmp/etc/resolv.conf" 2>/dev/null || true
  printf '#!/bin/sh\nexit 101\n' >"$rootfs.tmp/usr/sbin/policy-rc.d"; chmod 755 "$rootfs.tmp/usr/sbin/policy-rc.d"
  log "apt-get upgrade inside the rootfs ($suite-updates, $suite-security)"
  unshare --mount --pid --fork --propagation private -- sh -euc '
    r="$1"
    mount -t proc proc "$r/proc"
    mount --rbind /dev "$r/dev"
    exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive sh -euc "
      apt-get update -q
      apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold upgrade
      apt-get clean"
  ' sh "$rootfs.tmp" >>"$build/debootstrap.log" 2>&1 \
    || { tail -n 30 "$build/debootstrap.log" >&2; echo "base-image: apt-get upgrade failed; full log: $build/debootstrap.log" >&2; exit 1; }
  assert_unmounted "$rootfs.tmp"

  # Trim what a container never uses, as debian:bookworm-slim does: apt lists and caches, logs, docs
  # (copyright files stay), man and info pages, message translations.
  (
    cd "$rootfs.tmp"
    rm -f usr/sbin/policy-rc.d
    rm -rf var/lib/apt/lists/* var/cache/apt/* var/cache/debconf/*-old var/lib/dpkg/*-old \
      var/log/* usr/share/man/* usr/share/info/* usr/share/lintian usr/share/linda usr/share/groff
    find usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
    mkdir -p var/lib/apt/lists/partial
    find usr/share/doc -mindepth 2 ! -type d ! -name copyright -delete
    find usr/share/doc -mindepth 1 -type d -empty -delete
  )
  assert_unmounted "$rootfs"
  rm -rf --one-file-system "$rootfs"
  mv "$rootfs.tmp" "$rootfs"
  printf '%s' "$rootfs_key" >"$build/rootfs.stamp"
else
  log "rootfs: cached ($build/rootfs; --refresh rebuilds it)"
fi
assert_unmounted "$rootfs"

# Image-specific files, applied on every run (idempotent).
(
  cd "$rootfs"
  # No device nodes, sockets or fifos in a layer; the runtime provides /dev.
  rm -rf --one-file-system dev/* dev/.[!.]* 2>/dev/null || true
  find . -xdev \( -type b -o -type c -o -type p -o -type s \) -delete
  # The runtime provides these (Docker and the kubelet bind-mount them); do not ship the build host's.
  rm -f etc/resolv.conf
  printf 'localhost\n' >etc/hostname
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >etc/hosts
  if [[ -e etc/machine-id ]]; then : >etc/machine-id; fi
  # The service user.
  if awk -F: '$3 == 1000 && $1 != "warden" { bad = 1 } END { exit !bad }' etc/passwd; then
    echo "base-image: uid 1000 is taken in the rootfs by another user" >&2; exit 1
  fi
  add_entry() { if [[ -f "$1" ]] && ! grep -q '^warden:' "$1"; then echo "$2" >>"$1"; fi; }
  add_entry etc/group 'warden:x:1000:'
  add_entry etc/gshadow 'warden:!::'
  add_entry etc/passwd 'warden:x:1000:1000:Warden:/home/warden:/usr/sbin/nologin'
  add_entry etc/shadow 'warden:*:19000:0:99999:7:::'
  grep -q '^warden:x:1000:1000:' etc/passwd && grep -q '^warden:x:1000:' etc/group \
    || { echo "base-image: could not add the user warden (1000:1000) to the rootfs" >&2; exit 1; }
  mkdir -p home/warden
  chown 1000:1000 home/warden
  chmod 755 home/warden
  chmod 1777 tmp
)

# --- layer 2 source: the jlink JRE (cached) -----------------------------------------------------------------
source bin/find-jdk.sh
available=$("$JAVA_HOME/bin/java" --list-modules | sed 's/@.*//')
modules=() missing=()
IFS=, read -r -a wanted <<<"$modules_wanted"
for m in "${wanted[@]}"; do
  if grep -qx "$m" <<<"$available"; then modules+=("$m"); else missing+=("$m"); fi
done
((${#missing[@]} == 0)) || log "JDK at $JAVA_HOME lacks modules, skipped: ${missing[*]}"
module_list=$(IFS=,; echo "${modules[*]}")
jlink_opts=(--strip-debug --no-man-pages --no-header-files --generate-cds-archive)
jre_layer="$build/jre-layer"
jre_key="jdk=$JAVA_HOME $(cksum <"$JAVA_HOME/release") modules=$module_list opts=${jlink_opts[*]}"
if [[ ! -f "$build/jre.stamp" || "$(cat "$build/jre.stamp")" != "$jre_key" ]]; then
  log "jlink from $JAVA_HOME: $module_list"
  rm -rf "$jre_layer" "$build/jre.tmp" "$build/jre.stamp"
  "$JAVA_HOME/bin/jlink" --add-modules "$module_list" "${jlink_opts[@]}" --output "$build/jre.tmp" >&2
  mkdir -p "$jre_layer${java_home%/*}"
  mv "$build/jre.tmp" "$jre_layer$java_home"
  chown -R 0:0 "$jre_layer"
  chmod -R u+w,go-w,a+rX "$jre_layer"
  printf '%s' "$jre_key" >"$build/jre.stamp"
else
  log "JRE: cached ($jre_layer$java_home)"
fi
"$jre_layer$java_home/bin/java" -version 2>&1 | sed 's/^/base-image: JRE: /' >&2

# --- layers, config, manifest ---------------------------------------------------------------------------
# layer_tar DIR OUT: a deterministic tar of DIR's contents (entry names without a leading ./).
layer_tar() {
  local dir="$1" out="$2" entries
  assert_unmounted "$dir"
  mapfile -t entries < <(cd "$dir" && find . -mindepth 1 -maxdepth 1 -printf '%P\n' | sort)
  tar --create --file="$out.tmp" --directory="$dir" --format=gnu --sort=name --numeric-owner \
    --mtime="@$epoch" --one-file-system -- "${entries[@]}"
  mv "$out.tmp" "$out"
}
log "writing layer tars"
layer_tar "$rootfs" "$build/layer-rootfs.tar"
layer_tar "$jre_layer" "$build/layer-jre.tar"
rootfs_id=$(sha256sum "$build/layer-rootfs.tar" | cut -d' ' -f1)
jre_id=$(sha256sum "$build/layer-jre.tar" | cut -d' ' -f1)
jdk_version=$(awk -F'"' '/^JAVA_VERSION=/ {print $2}' "$jre_layer$java_home/release")

config=$(printf '{"architecture":"%s","os":"linux","created":"%s","config":{"User":"1000:1000","Env":["%s","JAVA_HOME=%s","LANG=C.UTF-8"],"WorkingDir":"/home/warden","Labels":{"org.opencontainers.image.title":"warden-base","org.opencontainers.image.description":"Debian %s minbase + jlink JRE %s"}},"rootfs":{"type":"layers","diff_ids":["sha256:%s","sha256:%s"]},"history":[{"created":"%s","created_by":"debootstrap --variant=minbase --include=%s %s; apt-get upgrade; user warden (1000:1000)"},{"created":"%s","created_by":"jlink --add-modules %s %s --output %s"}]}' \
  "$arch" "$created" "$path_env" "$java_home" "$suite" "$jdk_version" "$rootfs_id" "$jre_id" \
  "$created" "$packages" "$suite" "$created" "$module_list" "${jlink_opts[*]}" "$java_home")
config_id=$(printf '%s' "$config" | sha256sum | cut -d' ' -f1)

if [[ -f "$out" && -f "$build/image.stamp" && "$(cat "$build/image.stamp")" == "$config_id" ]]; then
  log "unchanged: $out (config sha256:$config_id)"
else
  stage="$build/image"
  rm -rf "$stage"; mkdir -p "$stage/$rootfs_id" "$stage/$jre_id"
  ln "$build/layer-rootfs.tar" "$stage/$rootfs_id/layer.tar"
  ln "$build/layer-jre.tar" "$stage/$jre_id/layer.tar"
  printf '%s' "$config" >"$stage/$config_id.json"
  printf '[{"Config":"%s.json","RepoTags":["warden-base:local"],"Layers":["%s/layer.tar","%s/layer.tar"]}]\n' \
    "$config_id" "$rootfs_id" "$jre_id" >"$stage/manifest.json"
  printf '{"warden-base":{"local":"%s"}}\n' "$jre_id" >"$stage/repositories"
  tar --create --file="$out.tmp" --directory="$stage" --format=gnu --numeric-owner --owner=0 --group=0 \
    --mtime="@$epoch" -- manifest.json "$config_id.json" "$rootfs_id/layer.tar" "$jre_id/layer.tar" repositories
  mv "$out.tmp" "$out"
  rm -rf "$stage"
  printf '%s' "$config_id" >"$build/image.stamp"
  log "wrote $out"
fi
log "layers: rootfs sha256:$rootfs_id ($(du -h "$build/layer-rootfs.tar" | cut -f1)), jre sha256:$jre_id ($(du -h "$build/layer-jre.tar" | cut -f1))"
log "image: $out ($(du -h "$out" | cut -f1)), config sha256:$config_id"
