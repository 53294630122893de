/**
 * Which addresses named by a discovery (a DHT answer, mDNS) a node may dial (security review,
 * finding 12): public ones; loopback only when the node listens on loopback itself (a local
 * swarm, tests); private, link-local and other reserved ranges only inside a subnet of one of this
 * host's own interfaces (a LAN we are on, as mDNS finds it). A hostile DHT peer can then no longer
 * make every reader probe hosts of its choosing on their internal networks.
 */
import { BlockList } from "node:net";
import { networkInterfaces } from "node:os";
import { getNetConfig, isLoopback, isPrivate } from "@libp2p/utils";
import { type Multiaddr, multiaddr } from "@multiformats/multiaddr";

export interface AddressScope {
  /** We listen on loopback ourselves. */
  readonly loopback: boolean;
  /** Subnets of this host's interfaces. */
  readonly lan: BlockList;
  /** Dial anything (NetworkOptions.dialAnyDiscoveredAddress). */
  readonly any: boolean;
}

/** The scope of a node listening on `listen`, from this host's interfaces. */
export function localScope(listen: readonly string[], any: boolean): AddressScope {
  const lan = new BlockList();
  for (const list of Object.values(networkInterfaces()))
    for (const i of list ?? []) {
      if (i.internal || !i.cidr) continue;
      const [net, bits] = i.cidr.split("/");
      lan.addSubnet(net.split("%")[0], Number(bits), i.family === "IPv4" ? "ipv4" : "ipv6");
    }
  return { loopback: listen.some((a) => isLoopback(multiaddr(a))), lan, any };
}

/** Whether a discovered address may be dialled; addresses with no IP (DNS names) pass, as they name no range. */
export function dialableAddress(ma: Multiaddr, scope: AddressScope): boolean {
  if (scope.any) return true;
  if (isLoopback(ma)) return scope.loopback;
  if (!isPrivate(ma)) return true;
  let config;
  try {
    config = getNetConfig(ma);
  } catch {
    return false;
  }
  if (config.type !== "ip4" && config.type !== "ip6") return false;
  return scope.lan.check(config.host, config.type === "ip4" ? "ipv4" : "ipv6");
}
