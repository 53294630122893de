#!/usr/bin/env bash
# Builds the CPU image and runs the compose swarm (bootstrap + 2 peers + Prometheus) on the tiny
# preset until every node has left with a checkpoint, then checks they agree.
#
#   docker/smoke.sh [NODE_IMAGE]      e.g. docker/smoke.sh registry.example/mirror/node:22-bookworm-slim
#
# NODE_IMAGE (argument or variable) replaces node:22-bookworm-slim where Docker Hub is not
# reachable; PROMETHEUS_IMAGE likewise for prom/prometheus. Needs a reachable Docker engine and
# `docker compose` (v2) or `docker-compose`; exits 2 with a message when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."

export NODE_IMAGE="${1:-${NODE_IMAGE:-node:22-bookworm-slim}}"
export SEEDSWARM_IMAGE="${SEEDSWARM_IMAGE:-seedswarm:smoke}"
export SEEDSWARM_PRESET=tiny-spsa SEEDSWARM_ITERATIONS=400
PROJECT=seedswarm-smoke

if ! command -v docker >/dev/null 2>&1; then
  echo "smoke: no docker command on this machine; install Docker to run the image smoke test" >&2
  exit 2
fi
if ! docker info >/dev/null 2>&1; then
  echo "smoke: no Docker engine reachable (docker info failed); start one or set DOCKER_HOST" >&2
  exit 2
fi
if docker compose version >/dev/null 2>&1; then
  compose() { docker compose -p "$PROJECT" -f docker/compose.yaml "$@"; }
elif command -v docker-compose >/dev/null 2>&1; then
  compose() { docker-compose -p "$PROJECT" -f docker/compose.yaml "$@"; }
else
  echo "smoke: neither 'docker compose' nor 'docker-compose' is installed" >&2
  exit 2
fi

echo "smoke: building $SEEDSWARM_IMAGE from $NODE_IMAGE"
docker build -f docker/Dockerfile --build-arg NODE_IMAGE="$NODE_IMAGE" -t "$SEEDSWARM_IMAGE" .

echo "smoke: the entrypoint answers"
docker run --rm "$SEEDSWARM_IMAGE" --version
docker run --rm -e SEEDSWARM_PRESET=tiny-spsa "$SEEDSWARM_IMAGE" node --print-config >/dev/null

cleanup() { compose down -v --remove-orphans >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup
compose config -q
compose up -d

# Long enough for the first health checks (30 s apart) while every node trains.
deadline=$((SECONDS + 600))
for svc in bootstrap peer-1 peer-2; do
  until [ "$(docker inspect -f '{{.State.Health.Status}}' "$(compose ps -q "$svc")" 2>/dev/null)" = healthy ]; do
    if [ $SECONDS -gt $deadline ]; then
      echo "smoke: $svc never became healthy" >&2
      compose logs "$svc" | tail -50 >&2
      exit 1
    fi
    sleep 3
  done
  echo "smoke: $svc is healthy"
done

echo "smoke: waiting for the run to end (each node prints its result and exits 0)"
sums=""
for svc in bootstrap peer-1 peer-2; do
  code=$(docker wait "$(compose ps -q "$svc")")
  if [ "$code" != 0 ]; then
    echo "smoke: $svc exited with $code" >&2
    compose logs "$svc" | tail -50 >&2
    exit 1
  fi
  line=$(compose logs --no-color "$svc" | grep -o '{"iteration":[0-9]*,"checksum":"[0-9a-f]*"' | tail -1)
  echo "smoke: $svc: $line"
  sums="$sums$line\n"
done
if [ "$(printf "$sums" | sort -u | grep -c .)" != 1 ]; then
  echo "smoke: the nodes ended with different checksums" >&2
  exit 1
fi
echo "smoke: ok (3 nodes, one final checksum; Prometheus scraped them at http://127.0.0.1:9091)"
