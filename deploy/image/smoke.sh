#!/usr/bin/env bash
# Runs a docker-archive image tar without a container engine, to smoke-test what Jib's jib:buildTar
# (api/target/jib-image.tar) or deploy/image/base-image.sh wrote. Usage, as root:
#   deploy/image/smoke.sh IMAGE_TAR [-e NAME=VALUE]... [--user UID[:GID]] [ARGS...]
#   deploy/image/smoke.sh IMAGE_TAR [-e NAME=VALUE]... [--user UID[:GID]] -- COMMAND [ARGS...]
# ARGS replace the image's Cmd (after its Entrypoint); everything after -- replaces Entrypoint and Cmd.
# Examples:
#   deploy/image/smoke.sh deploy/image/.build/warden-base.tar -- java -version
#   deploy/image/smoke.sh api/target/jib-image.tar -e WARDEN_ROLES=api -e WARDEN_BOOTSTRAP_TOKEN=x
# The layers are extracted in order into a temporary rootfs (gzip or plain; .wh. whiteouts and opaque
# directories honoured), and the command runs there under chroot in its own mount and PID namespaces,
# with /proc mounted, /dev and /sys bind-mounted, the host's /etc/resolv.conf and the host's network.
# It runs as the image's User (or --user), in its WorkingDir, with exactly its Env plus HOME and the -e
# values. The temporary rootfs is removed on exit (TMPDIR picks where it goes). Its exit status is the
# command's. Only for images you trust: this is no sandbox.
set -euo pipefail
export LC_ALL=C

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
if [[ $(id -u) -ne 0 ]]; then
  echo "smoke: must run as root (it extracts layers with their owners, mounts and chroots)." >&2
  exit 1
fi
[[ $# -ge 1 && "$1" != -h && "$1" != --help ]] || usage
image_tar=$(readlink -f -- "$1"); shift
[[ -f "$image_tar" ]] || { echo "smoke: no such file: $image_tar" >&2; exit 1; }
for tool in jq tar unshare findmnt pkill; do
  command -v "$tool" >/dev/null 2>&1 || { echo "smoke: $tool not found (apt-get install $tool)" >&2; exit 1; }
done

extra_env=() user_override="" replace_all=0 args=() have_args=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    -e|--env) [[ $# -ge 2 && "$2" == *=* ]] || { echo "smoke: $1 needs NAME=VALUE" >&2; exit 2; }
              extra_env+=("$2"); shift 2 ;;
    -e=*|--env=*) extra_env+=("${1#*=}"); shift ;;
    -u|--user) [[ $# -ge 2 ]] || usage; user_override="$2"; shift 2 ;;
    --) shift; replace_all=1; args=("$@"); have_args=1; break ;;
    *) args=("$@"); have_args=1; break ;;
  esac
done
if [[ $replace_all -eq 1 && ${#args[@]} -eq 0 ]]; then echo "smoke: nothing after --" >&2; exit 2; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/warden-smoke.XXXXXX")
root="$tmp/rootfs"
cleanup() {
  local m
  # The mounts live in the command's private mount namespace and die with it; this is a safety net.
  while read -r m; do umount -R -l "$m" 2>/dev/null || true; done \
    < <(findmnt -rn -o TARGET | awk -v d="$tmp" 'index($0, d "/") == 1' | sort -r)
  if findmnt -rn -o TARGET | awk -v d="$tmp" 'index($0, d "/") == 1' | grep -q .; then
    echo "smoke: still mounted under $tmp; not deleting it" >&2
  else
    rm -rf --one-file-system "$tmp"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- unpack -------------------------------------------------------------------------------------------
mkdir -p "$tmp/image" "$root"
tar -xf "$image_tar" -C "$tmp/image"
manifest="$tmp/image/manifest.json"
[[ -f "$manifest" ]] || { echo "smoke: $image_tar has no manifest.json (not a docker-archive?)" >&2; exit 1; }
config="$tmp/image/$(jq -r '.[0].Config' "$manifest")"
mapfile -t layers < <(jq -r '.[0].Layers[]' "$manifest")
echo "smoke: $(jq -r '(.[0].RepoTags // ["<untagged>"]) | join(" ")' "$manifest"), ${#layers[@]} layers" >&2

# Removes $root/$1 unless a path component on the way is a symlink (which could point out of $root).
remove_in_root() {
  local rel="$1" p="$root" part
  IFS=/ read -r -a parts <<<"$rel"
  for part in "${parts[@]:0:${#parts[@]}-1}"; do
    [[ -z "$part" || "$part" == . ]] && continue
    p="$p/$part"
    [[ -L "$p" ]] && { echo "smoke: whiteout through a symlink skipped: $rel" >&2; return 0; }
    [[ -d "$p" ]] || return 0
  done
  rm -rf --one-file-system -- "$root/$rel"
}

for layer in "${layers[@]}"; do
  f="$tmp/image/$layer"
  # Whiteouts first: they delete what lower layers put there, then the layer's own files go in.
  while IFS= read -r entry; do
    entry=${entry#./}; entry=${entry%/}
    name=${entry##*/}; dir=${entry%"$name"}; dir=${dir%/}
    [[ "/$entry/" == */../* ]] && { echo "smoke: skipping whiteout with ..: $entry" >&2; continue; }
    if [[ "$name" == .wh..wh..opq ]]; then
      if [[ -d "$root/$dir" && ! -L "$root/$dir" ]]; then
        find "$root/$dir" -mindepth 1 -maxdepth 1 -print0 | while IFS= read -r -d '' c; do
          remove_in_root "${c#"$root/"}"
        done
      fi
    elif [[ "$name" == .wh.* ]]; then
      remove_in_root "${dir:+$dir/}${name#.wh.}"
    fi
  done < <(tar -tf "$f" | grep -E '(^|/)\.wh\.[^/]*/?$' || true)
  tar -xf "$f" -C "$root" --warning=no-unknown-keyword --numeric-owner --same-owner --same-permissions --exclude='.wh.*'
done

# --- config -------------------------------------------------------------------------------------------
cfg() { jq -j "$1" "$config"; }
mapfile -d '' -t entrypoint < <(cfg '(.config.Entrypoint // []) | .[] | . + "\u0000"')
mapfile -d '' -t cmd < <(cfg '(.config.Cmd // []) | .[] | . + "\u0000"')
mapfile -d '' -t env < <(cfg '(.config.Env // []) | .[] | . + "\u0000"')
user=${user_override:-$(cfg '.config.User // ""')}
workdir=$(cfg '.config.WorkingDir // ""'); workdir=${workdir:-/}

if [[ $replace_all -eq 1 ]]; then
  command=("${args[@]}")
elif [[ $have_args -eq 1 ]]; then
  command=("${entrypoint[@]}" "${args[@]}")
else
  command=("${entrypoint[@]}" "${cmd[@]}")
fi
((${#command[@]} > 0)) || { echo "smoke: the image has no Entrypoint or Cmd; give a command after --" >&2; exit 2; }

# USER is name|uid[:group|gid], resolved against the image's /etc/passwd and /etc/group.
lookup() { [[ -f "$root/etc/$1" ]] && awk -F: -v k="$2" -v col="$3" '$1 == k { print $col; exit }' "$root/etc/$1"; }
u=${user%%:*}; g=""; [[ "$user" == *:* ]] && g=${user#*:}
u=${u:-0}
if [[ ! "$u" =~ ^[0-9]+$ ]]; then
  name=$u; u=$(lookup passwd "$name" 3 || true)
  [[ -n "$u" ]] || { echo "smoke: user $name is not in the image's /etc/passwd" >&2; exit 1; }
fi
passwd_line=$(awk -F: -v id="$u" '$3 == id { print; exit }' "$root/etc/passwd" 2>/dev/null || true)
if [[ -z "$g" ]]; then
  g=$(cut -d: -f4 <<<"$passwd_line"); g=${g:-0}
elif [[ ! "$g" =~ ^[0-9]+$ ]]; then
  name=$g; g=$(lookup group "$name" 3 || true)
  [[ -n "$g" ]] || { echo "smoke: group $name is not in the image's /etc/group" >&2; exit 1; }
fi
home=$(cut -d: -f6 <<<"$passwd_line"); home=${home:-/}

# Env: the image's, then HOME and PATH defaults when it sets none, then -e (a later NAME wins).
declare -A seen=()
final_env=()
for kv in "${env[@]}" "${extra_env[@]}"; do
  k=${kv%%=*}
  if [[ -n "${seen[$k]:-}" ]]; then final_env[${seen[$k]}]="$kv"; else seen[$k]=${#final_env[@]}; final_env+=("$kv"); fi
done
[[ -n "${seen[HOME]:-}" ]] || final_env+=("HOME=$home")
[[ -n "${seen[PATH]:-}" ]] || final_env+=("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")

# Mount points and the runtime-provided files.
mkdir -p "$root/proc" "$root/dev" "$root/sys" "$root/etc" "$root/tmp" "$root/${workdir#/}"
if [[ -L "$root/etc/resolv.conf" ]]; then rm -f "$root/etc/resolv.conf"; fi
[[ -e "$root/etc/resolv.conf" ]] || : >"$root/etc/resolv.conf"

echo "smoke: running as $u:$g in $workdir: ${command[*]}" >&2
inner='
  root="$1"; shift
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  if [ -f /etc/resolv.conf ]; then mount --bind /etc/resolv.conf "$root/etc/resolv.conf"; fi
  exec "$@"'
# On INT/TERM: TERM to the command (PID 1 of the namespace), then, after 10 s, KILL to it, which takes
# the namespace down with it. (unshare's --kill-child alone is not enough: the setuid clears it.)
child=""
stop_child() {
  [[ -n "$child" ]] && kill -0 "$child" 2>/dev/null || return 0
  pkill -TERM -P "$child" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$child" 2>/dev/null || return 0; sleep 0.2; done
  echo "smoke: the command ignored TERM for 10 s; killing it" >&2
  pkill -KILL -P "$child" 2>/dev/null || true
  wait "$child" 2>/dev/null || true
}
trap 'stop_child; exit 130' INT
trap 'stop_child; exit 143' TERM
trap 'stop_child; cleanup' EXIT
# In the background, so that INT/TERM reach the trap at once; stdin stays the caller's.
exec 3<&0
unshare --mount --pid --fork --kill-child --propagation private -- sh -ec "$inner" sh "$root" \
  env -i "${final_env[@]}" "$(command -v unshare)" --root="$root" --wd="$workdir" --setgid="$g" --setuid="$u" \
  -- "${command[@]}" <&3 3<&- &
child=$!
exec 3<&-
rc=0
wait "$child" || rc=$?
exit $rc
