#!/bin/sh
# Checks the Dockerfile. With a working container engine (docker or podman, else buildah): builds
# the image, runs it and waits for its HEALTHCHECK; exit 0 when healthy, 1 otherwise. Without one:
# replays the stages on this machine (scripts/dockerfile-replay.ts: npm ci --omit=dev for real,
# the service and worker started from dist/ as an unprivileged user); a failed replay exits 1,
# a passed one exits 77 ("not checked"), never 0, since the image itself was neither built nor run.
cd "$(dirname "$0")/.."
TIMEOUT_S=${CHECK_DOCKERFILE_TIMEOUT_S:-180}

engine=""
why=""
for e in docker podman; do
  if ! command -v "$e" >/dev/null 2>&1; then why="$why $e: not installed;"; continue; fi
  if timeout 20 "$e" info >/dev/null 2>&1; then engine=$e; break; fi
  why="$why $e: installed, but '$e info' fails (no daemon or socket reachable);"
done
if [ -z "$engine" ]; then
  if command -v buildah >/dev/null 2>&1 && timeout 20 buildah version >/dev/null 2>&1; then engine=buildah; else why="$why buildah: not installed or not working;"; fi
fi

if [ -z "$engine" ]; then
  echo "check-dockerfile: no container engine:$why replaying the Dockerfile's stages instead"
  sh scripts/node.sh --import tsx scripts/dockerfile-replay.ts || exit 1
  cat <<'EOF'

################################################################################
##                                                                            ##
##   check-dockerfile: NOT PASSED. THE IMAGE WAS NOT BUILT AND NOT RUN:       ##
##   no container engine (docker, podman, buildah) works on this machine.     ##
##   Only the stages were replayed with this machine's Node (see above).      ##
##   Run this script where an engine works for the real check. Exit 77.      ##
##                                                                            ##
################################################################################
EOF
  exit 77
fi

tag="dggs-api:check-$$"
cid=""
cleanup() {
  if [ -n "$cid" ]; then
    if [ "$engine" = buildah ]; then buildah rm "$cid" >/dev/null 2>&1; else "$engine" rm -f "$cid" >/dev/null 2>&1; fi
  fi
  if [ "$engine" = buildah ]; then buildah rmi "$tag" >/dev/null 2>&1; else "$engine" rmi "$tag" >/dev/null 2>&1; fi
}
trap cleanup EXIT INT TERM

echo "check-dockerfile: building the image with $engine"
if [ "$engine" = buildah ]; then buildah bud --layers -t "$tag" . || exit 1; else "$engine" build -t "$tag" . || exit 1; fi

start=$(date +%s)
if [ "$engine" = buildah ]; then
  # buildah runs no services: the CMD in a working container on the host's network, probed by the
  # image's own HEALTHCHECK command run in the same container.
  cid=$(buildah from "$tag") || exit 1
  port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
  buildah run --network host --env "PORT=$port" "$cid" -- node dist/src/main.js &
  probe='fetch("http://127.0.0.1:" + process.env.PORT + "/health/live").then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))'
  until buildah run --network host --env "PORT=$port" "$cid" -- node -e "$probe" >/dev/null 2>&1; do
    if [ $(($(date +%s) - start)) -gt "$TIMEOUT_S" ]; then echo "check-dockerfile: FAILED: /health/live did not answer within ${TIMEOUT_S} s" >&2; kill $! 2>/dev/null; exit 1; fi
    sleep 2
  done
  kill $! 2>/dev/null
  echo "check-dockerfile: PASS: image built with buildah, /health/live answered in $(($(date +%s) - start)) s"
  exit 0
fi

# A short interval so the check does not wait for the image's 30 s one.
cid=$("$engine" run -d --health-interval=2s --health-retries=3 "$tag") || exit 1
while :; do
  if [ "$engine" = podman ]; then
    # podman runs healthchecks from systemd timers, which a bare host may lack: run it ourselves.
    podman healthcheck run "$cid" >/dev/null 2>&1 && status=healthy || status=starting
  else
    status=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$cid")
  fi
  running=$("$engine" inspect -f '{{.State.Running}}' "$cid")
  case "$status" in
    healthy) echo "check-dockerfile: PASS: image built with $engine, container healthy in $(($(date +%s) - start)) s"; exit 0 ;;
    unhealthy|none) echo "check-dockerfile: FAILED: container health is '$status'" >&2; "$engine" logs "$cid" 2>&1 | tail -20 >&2; exit 1 ;;
  esac
  if [ "$running" != true ]; then echo "check-dockerfile: FAILED: the container stopped" >&2; "$engine" logs "$cid" 2>&1 | tail -20 >&2; exit 1; fi
  if [ $(($(date +%s) - start)) -gt "$TIMEOUT_S" ]; then echo "check-dockerfile: FAILED: not healthy within ${TIMEOUT_S} s" >&2; exit 1; fi
  sleep 2
done
