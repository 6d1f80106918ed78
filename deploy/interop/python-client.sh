#!/usr/bin/env bash
# The Python client library (deploy/clients/python, package warden_client, standard library only) against a running
# Warden: installs it the way a user would, then runs its unittest suite (deploy/clients/python/tests) over HTTP against
# WARDEN_URL. run.sh runs it as the interop script "python-client" (INTEROP_SCRIPTS=python-client); alone:
#   WARDEN_URL=http://localhost:8080 bash deploy/interop/python-client.sh
# The server must allow private webhook targets (WARDEN_WEBHOOKS_ALLOW__PRIVATE__TARGETS=true, as run.sh starts
# it): a test receives a real delivery on 127.0.0.1. The suite signs up two users and asks the token endpoint
# (20 requests a minute per IP) about six times.
# Installing, offline (no package index is assumed reachable), in the first way that works, each from a copy of
# deploy/clients/python so that no build directory is left in the tree:
#   1. a wheel: `pip wheel --no-deps --no-build-isolation`, installed into a throwaway venv with `--no-index`. Needs
#      setuptools and, before setuptools 70.1, the separate `wheel` package in the interpreter;
#   2. else `pip install --no-index --no-build-isolation --no-deps` into that venv (the venv sees the system
#      site-packages, for setuptools);
#   3. else (this machine's python3 has setuptools 65 and no `wheel`, so both builds fail offline) the tests import
#      the sources through PYTHONPATH=deploy/clients/python/src, which the script says.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
package="$root/deploy/clients/python"

log() { echo "python-client: $*" >&2; }

if [[ -z "${WARDEN_URL:-}" ]]; then
  log "WARDEN_URL is not set (a running warden dev, e.g. http://localhost:8080)"
  exit 2
fi
export WARDEN_URL="${WARDEN_URL%/}"

if ! python="$(command -v python3)"; then
  log "python3 is not installed"
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)'; then
  log "$("$python" --version 2>&1) is older than the 3.9 the package requires"
  exit 1
fi
log "using $python ($("$python" --version 2>&1))"

work="$(mktemp -d /tmp/warden-python-client.XXXXXX)"
trap 'rm -rf "$work"' EXIT

started=$SECONDS
cp -r "$package" "$work/source"
rm -rf "$work/source/build" "$work/source/dist" "$work/source"/src/*.egg-info
# Why an attempt failed, from its log: the missing piece when it names one, else its first error line.
reason() {
  grep -m1 -oE "invalid command '[a-z_]+'|No module named '?[A-Za-z_.]+'?" "$1" ||
    grep -m1 -iE "error" "$1" | sed -E 's/^[[:space:]]+//' || echo "no error line in its log"
}

runner=()
if "$python" -m venv --system-site-packages "$work/venv" >"$work/venv.log" 2>&1; then
  venv="$work/venv/bin/python"
  log "building a wheel (pip wheel --no-index --no-deps --no-build-isolation)"
  if "$venv" -m pip wheel --quiet --no-index --no-deps --no-build-isolation -w "$work/dist" "$work/source" \
    >"$work/wheel.log" 2>&1 && "$venv" -m pip install --quiet --no-index --no-deps "$work"/dist/*.whl \
    >>"$work/wheel.log" 2>&1; then
    runner=("$venv")
    log "installed the wheel $(basename "$work"/dist/*.whl) into a throwaway venv"
  else
    log "no wheel offline: $(reason "$work/wheel.log")"
    log "installing with pip install --no-index --no-deps --no-build-isolation instead"
    if "$venv" -m pip install --quiet --no-index --no-deps --no-build-isolation "$work/source" \
      >"$work/install.log" 2>&1; then
      runner=("$venv")
      log "installed deploy/clients/python into a throwaway venv"
    else
      log "not installable offline either: $(reason "$work/install.log")"
    fi
  fi
else
  log "python3 -m venv failed: $(reason "$work/venv.log")"
fi
if ((${#runner[@]} == 0)); then
  log "FALLBACK: the tests import the sources through PYTHONPATH=deploy/clients/python/src (the package is not installed)"
  export PYTHONPATH="$package/src${PYTHONPATH:+:$PYTHONPATH}"
  runner=("$python")
fi

# From the tests' directory, so that the import below can only find the installed package (or PYTHONPATH's).
cd "$package/tests"
log "warden_client imported from $("${runner[@]}" -c 'import warden_client, os; print(os.path.dirname(warden_client.__file__))')"
log "running the tests against $WARDEN_URL"
status=0
"${runner[@]}" -m unittest discover --start-directory . --pattern 'test_*.py' --verbose || status=$?
log "$( ((status == 0)) && echo passed || echo FAILED) in $((SECONDS - started)) s"
exit "$status"
