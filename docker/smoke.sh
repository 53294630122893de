#!/usr/bin/env bash
# The images and the compose swarm, end to end, on a real Docker engine:
#   1. finds a Docker engine, or starts the installed dockerd (root);
#   2. finds the base images, or pulls them, or builds them locally (docker/base-images.sh);
#   3. builds the CPU image (prints its size and build time);
#   4. runs docker/compose.yaml (bootstrap + 2 peers + Prometheus) on the tiny preset and checks:
#      every node trains; HEALTHCHECK says healthy while training; Prometheus scrapes all three
#      (its HTTP API); `docker stop` of a peer leaves within the grace period with a checkpoint;
#      `up` again rejoins with the same peer id from its checkpoint; `docker kill` (SIGKILL, a
#      spot reclaim without notice) of a peer lets the others go on, and it rejoins; at the end
#      every node holds the same checksum at a common iteration, and all leave with exit 0.
# Any failed check exits 1 with a line saying which; exit 2 means no engine could be found or
# started (nothing was tested).
#
#   docker/smoke.sh                 NODE_IMAGE=..., PROMETHEUS_IMAGE=... to use given base images
#   SMOKE_REPORT=out.json docker/smoke.sh     also write the figures as JSON
#   SMOKE_NO_CACHE=1                a cold build (no layer cache) for the build-time figure
#   SMOKE_KEEP=1                    leave the swarm and its volumes up afterwards (post-mortem)
# No pipefail: the checks read logs through grep, which may close the pipe early (SIGPIPE).
set -eu
cd "$(dirname "$0")/.."

PROJECT=seedswarm-smoke
export SEEDSWARM_IMAGE="${SEEDSWARM_IMAGE:-seedswarm:smoke}"
export SEEDSWARM_PRESET=tiny-spsa
# Longer than the test: the rate swings from 3 to 25 iterations/s with the machine's load, so the
# end is a common iteration chosen after the checks, and then every node is stopped.
export SEEDSWARM_ITERATIONS=1000000
# docker stop's grace period in this test; compose gives the nodes SEEDSWARM_LEAVE_DEADLINE=20000.
GRACE=30
PROM=http://127.0.0.1:9091
declare -A IDS

say() { echo "smoke: $*"; }
# On a failure, each node's last words on forks and repairs (where a split swarm shows).
fail() {
  echo "smoke: FAILED: $*" >&2
  for s in bootstrap peer-1 peer-2; do
    [ -n "${IDS[$s]:-}" ] || continue
    echo "smoke: $s at $(head_of $s); its last fork/divergence lines:" >&2
    logs "$s" | grep -E '"msg":"[^"]*(fork|diverge|disagree|repair)' | tail -3 | grep -o '"iteration":[0-9]*\|"msg":"[^"]*"' | paste -sd' ' | sed 's/^/smoke:   /' >&2 || true
  done
  exit 1
}
t0=$SECONDS

# --- 1. the engine ---------------------------------------------------------------------------
command -v docker >/dev/null 2>&1 || { echo "smoke: no docker command; install Docker (Debian: apt-get install docker.io docker-compose)" >&2; exit 2; }
if ! docker info >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v dockerd >/dev/null 2>&1; then
    say "no engine answering; starting dockerd (log: /tmp/seedswarm-dockerd.log)"
    (nohup dockerd >/tmp/seedswarm-dockerd.log 2>&1 &)
    for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  fi
  docker info >/dev/null 2>&1 || { echo "smoke: no Docker engine reachable and none could be started (docker info failed; see /tmp/seedswarm-dockerd.log)" >&2; exit 2; }
fi
say "engine: Docker $(docker version -f '{{.Server.Version}}' 2>/dev/null), storage $(docker info -f '{{.Driver}}' 2>/dev/null)"
if docker compose version >/dev/null 2>&1; then
  compose() { docker compose -p "$PROJECT" -f docker/compose.yaml "$@"; }
elif command -v docker-compose >/dev/null 2>&1; then
  compose() { docker-compose -p "$PROJECT" -f docker/compose.yaml "$@"; }
else
  echo "smoke: neither 'docker compose' nor 'docker-compose' is installed" >&2
  exit 2
fi

# --- 2. base images ---------------------------------------------------------------------------
# Given, present, pullable, or else built from the APT mirror and the npm registry.
have_or_pull() { docker image inspect "$1" >/dev/null 2>&1 || timeout 60 docker pull -q "$1" >/dev/null 2>&1; }
NODE_IMAGE="${NODE_IMAGE:-node:22-bookworm-slim}"
PROMETHEUS_IMAGE="${PROMETHEUS_IMAGE:-prom/prometheus:v2.53.0}"
if ! have_or_pull "$NODE_IMAGE" || ! have_or_pull "$PROMETHEUS_IMAGE"; then
  say "$NODE_IMAGE or $PROMETHEUS_IMAGE is neither here nor pullable: building local base images"
  eval "$(docker/base-images.sh | tail -1)"
fi
export NODE_IMAGE PROMETHEUS_IMAGE
say "base images: $NODE_IMAGE, $PROMETHEUS_IMAGE"

# --- 3. the CPU image -------------------------------------------------------------------------
say "building $SEEDSWARM_IMAGE"
b0=$SECONDS
docker build -q ${SMOKE_NO_CACHE:+--no-cache} -f docker/Dockerfile --build-arg NODE_IMAGE="$NODE_IMAGE" \
  -t "$SEEDSWARM_IMAGE" . >/dev/null 2>/tmp/seedswarm-smoke-build.log \
  || { tail -30 /tmp/seedswarm-smoke-build.log >&2; fail "docker build"; }
build_s=$((SECONDS - b0))
image_mb=$(( $(docker image inspect -f '{{.Size}}' "$SEEDSWARM_IMAGE") / 1000000 ))
say "image $SEEDSWARM_IMAGE: ${image_mb} MB, built in ${build_s} s${SMOKE_NO_CACHE:+ (no cache)}"
docker run --rm "$SEEDSWARM_IMAGE" --version >/dev/null || fail "the entrypoint does not answer --version"

# --- 4. the compose swarm ---------------------------------------------------------------------
# Container ids, looked up once per `up` (docker-compose v1 is slow to ask on a loaded machine).
refresh_ids() { local s; for s in bootstrap peer-1 peer-2; do IDS[$s]=$(compose ps -q "$s"); done; }
cid() { echo "${IDS[$1]}"; }
logs() { docker logs "$(cid "$1")" 2>/dev/null; }
# The last iteration a service applied (its log's "applied" lines), 0 before any.
head_of() { docker logs --tail 60 "$(cid "$1")" 2>/dev/null | grep '"msg":"applied"' | tail -1 | grep -o '"iteration":[0-9]*' | cut -d: -f2 || true; }
peer_id() { logs "$1" | grep -o '"self":"[^"]*"' | head -1 | cut -d'"' -f4; }
health() { docker inspect -f '{{.State.Health.Status}}' "$(cid "$1")" 2>/dev/null; }
running() { [ "$(docker inspect -f '{{.State.Running}}' "$(cid "$1")" 2>/dev/null)" = true ]; }
# Waits until `cond` holds, up to $1 seconds, else fails with $2.
wait_for() {
  local limit=$1 what=$2; shift 2
  local end=$((SECONDS + limit))
  until "$@"; do
    [ $SECONDS -lt $end ] || fail "$what (waited ${limit} s)"
    sleep 2
  done
}
get() { if command -v curl >/dev/null; then curl -fsS "$1"; else node -e 'fetch(process.argv[1]).then(r=>r.text()).then(t=>process.stdout.write(t))' "$1"; fi; }
advanced() { local h; h=$(head_of "$1"); [ "${h:-0}" -ge "$2" ]; }
resumed() { logs "$1" | grep -q '"msg":"resumed from checkpoint"'; }
all_healthy() { for s in bootstrap peer-1 peer-2; do [ "$(health $s)" = healthy ] || return 1; done; }
scraped() { [ "$(get "$PROM/api/v1/targets?state=active" 2>/dev/null | grep -o '"health":"up"' | wc -l)" -eq 3 ]; }
proposed_by_all() {
  [ "$(get "$PROM/api/v1/query?query=seedswarm_commits_proposed_total%3E0" 2>/dev/null | grep -o '"instance":"[^"]*"' | sort -u | wc -l)" -eq 3 ]
}

cleanup() {
  if [ -n "${SMOKE_KEEP:-}" ]; then say "SMOKE_KEEP: leaving project $PROJECT up"; return; fi
  compose down -v --remove-orphans >/dev/null 2>&1 || true
}
trap cleanup EXIT
compose down -v --remove-orphans >/dev/null 2>&1 || true
compose config -q || fail "compose.yaml does not validate"
s0=$SECONDS
compose up -d --no-build 2>&1 | grep -v '^$' | sed 's/^/smoke:   /'
refresh_ids

for s in bootstrap peer-1 peer-2; do
  wait_for 120 "$s applied no iteration" advanced "$s" 1
done
say "all three train (heads: bootstrap $(head_of bootstrap), peer-1 $(head_of peer-1), peer-2 $(head_of peer-2))"

# The HEALTHCHECK runs every 30 s: the first verdict comes about 30 s after the start (later on a
# loaded machine, where a check can pass its 10 s timeout).
wait_for 180 "not every node's HEALTHCHECK reported healthy while training" all_healthy
say "HEALTHCHECK: bootstrap, peer-1, peer-2 healthy at heads $(head_of bootstrap)/$(head_of peer-1)/$(head_of peer-2)"

wait_for 60 "Prometheus does not scrape all three targets (GET $PROM/api/v1/targets)" scraped
wait_for 60 "not every node has proposed a commit (seedswarm_commits_proposed_total)" proposed_by_all
say "Prometheus: 3/3 targets up; every node proposed commits (seedswarm_commits_proposed_total > 0)"

# docker stop: SIGTERM, then SIGKILL after the grace period. The node must exit 0 before that.
id_before=$(peer_id peer-2)
h=$SECONDS
docker stop -t "$GRACE" "$(cid peer-2)" >/dev/null
stop_s=$((SECONDS - h))
code=$(docker inspect -f '{{.State.ExitCode}}' "$(cid peer-2)")
[ "$code" = 0 ] || fail "peer-2 exited with $code on docker stop (137: killed at the end of the grace period)"
[ "$stop_s" -lt "$GRACE" ] || fail "peer-2 took ${stop_s} s to stop (grace ${GRACE} s)"
left_at=$(logs peer-2 | grep '"msg":"checkpoint written"' | tail -1 | grep -o '"iteration":[0-9]*' | cut -d: -f2)
[ -n "$left_at" ] || fail "peer-2 wrote no checkpoint when stopped"
say "docker stop peer-2: exit 0 in ${stop_s} s (grace ${GRACE} s), checkpoint at iteration $left_at"

compose up -d --no-build peer-2 2>&1 | grep -v '^$' | sed 's/^/smoke:   /'
refresh_ids
wait_for 60 "peer-2 did not resume from its checkpoint" resumed peer-2
id_after=$(logs peer-2 | grep '"msg":"resumed from checkpoint"' | tail -1 | grep -o '"self":"[^"]*"' | cut -d'"' -f4)
[ "$id_after" = "$id_before" ] || fail "peer-2 came back as $id_after, not $id_before"
wait_for 60 "peer-2 did not train again after rejoining" advanced peer-2 $((left_at + 5))
say "compose up peer-2: rejoined as the same peer ($id_after), resumed at $left_at, now at $(head_of peer-2)"

# docker kill: SIGKILL, no checkpoint, no leave notice. The others must go on.
killed_at=$(head_of bootstrap)
docker kill "$(cid peer-1)" >/dev/null
k=$SECONDS
wait_for 60 "the bootstrap stalled after peer-1 was killed" advanced bootstrap $((killed_at + 20))
wait_for 30 "peer-2 stalled after peer-1 was killed" advanced peer-2 $((killed_at + 20))
say "docker kill peer-1 at iteration $killed_at: bootstrap and peer-2 went on 20 iterations in $((SECONDS - k)) s"
# A spot replacement: the same volume comes back and rejoins from the last periodic checkpoint
# (or from scratch) and the commit log.
running peer-1 || compose up -d --no-build peer-1 2>&1 | grep -v '^$' | sed 's/^/smoke:   /'
refresh_ids
wait_for 120 "peer-1 did not train again after the kill" advanced peer-1 $((killed_at + 20))
say "peer-1 restarted on its volume and trains again (at $(head_of peer-1))"

# The end: a common iteration a little ahead of everyone; each node's last word on its checksum.
final=$(( $(head_of bootstrap) + 20 ))
for s in bootstrap peer-1 peer-2; do wait_for 120 "$s did not reach iteration $final" advanced $s $final; done
sum_at() { logs "$1" | grep '"msg":"applied"' | grep "\"iteration\":$2," | tail -1 | grep -o '"checksum":"[0-9a-f]*"' | cut -d'"' -f4; }
sums=""
for s in bootstrap peer-1 peer-2; do
  sum=$(sum_at $s $final)
  [ -n "$sum" ] || fail "$s logged no checksum for iteration $final"
  say "$s at iteration $final: $sum"
  sums="$sums$sum"$'\n'
done
[ "$(printf '%s' "$sums" | sort -u | grep -c .)" = 1 ] || fail "the nodes hold different checksums at iteration $final"

# And all leave: SIGTERM, exit 0 with a checkpoint each.
compose stop -t "$GRACE" bootstrap peer-1 peer-2 >/dev/null 2>&1
for s in bootstrap peer-1 peer-2; do
  code=$(docker inspect -f '{{.State.ExitCode}}' "$(cid $s)")
  [ "$code" = 0 ] || { logs $s | tail -20 >&2; fail "$s exited with $code when stopped"; }
done
compose_s=$((SECONDS - s0))

say "ok: 3 nodes, one checksum at iteration $final; figures: docker_image_mb=$image_mb docker_build_seconds=$build_s compose_smoke_seconds=$compose_s (total $((SECONDS - t0)) s)"
if [ -n "${SMOKE_REPORT:-}" ]; then
  printf '{"dockerImageMb":%s,"dockerBuildSeconds":%s,"dockerBuildCached":%s,"composeSmokeSeconds":%s,"stopSeconds":%s,"iterations":%s}\n' \
    "$image_mb" "$build_s" "$([ -n "${SMOKE_NO_CACHE:-}" ] && echo false || echo true)" "$compose_s" "$stop_s" "$final" >"$SMOKE_REPORT"
fi
