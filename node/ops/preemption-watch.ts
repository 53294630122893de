/**
 * Spot / preemptible instances: polls the cloud's metadata service for the notice that the
 * machine is about to be taken back, so the node leaves (checkpoint, leave message, exit 0)
 * while there is time, exactly as on SIGTERM.
 *
 * - AWS (IMDSv2): `PUT /latest/api/token` for a session token, then
 *   `GET /latest/meta-data/spot/instance-action`: 404 while nothing is scheduled, 200 with
 *   `{"action": "terminate" | "stop" | "hibernate", "time": ...}` about two minutes ahead.
 * - GCP: `GET /computeMetadata/v1/instance/preempted` with `Metadata-Flavor: Google`: `FALSE`,
 *   then `TRUE` about 30 s before the machine stops.
 *
 * The base URL can be overridden (an IMDS proxy, or a local server in tests).
 */
import { detach, type Logger } from "../ground/index.js";

export const PREEMPTION_PROVIDERS = ["none", "aws", "gcp"] as const;
export type PreemptionProvider = (typeof PREEMPTION_PROVIDERS)[number];

/** Where each cloud serves instance metadata. */
export const METADATA_URLS: Record<Exclude<PreemptionProvider, "none">, string> = {
  aws: "http://169.254.169.254",
  gcp: "http://metadata.google.internal",
};

export interface PreemptionWatchOptions {
  readonly provider: PreemptionProvider;
  /** Metadata service base URL; the provider's own when absent. */
  readonly metadataUrl?: string;
  /** Poll period. */
  readonly pollMs: number;
  /** Time allowed for one metadata request. */
  readonly requestTimeoutMs: number;
}

export const defaultPreemptionWatchOptions = {
  // Off: most machines are not spot instances, and a poll to a missing service only logs noise.
  provider: "none",
  // AWS recommends every 5 s; notices come 30 s (GCP) to 2 min (AWS) ahead.
  pollMs: 5000,
  // The metadata service is link-local and answers in milliseconds; a stuck request must not
  // push back the next poll.
  requestTimeoutMs: 2000,
} as const satisfies PreemptionWatchOptions;

/** IMDSv2 session tokens live up to 6 h; ours is renewed well before. */
const AWS_TOKEN_TTL_S = 21_600;
const AWS_TOKEN_RENEW_MS = 3_600_000;

/** One metadata client: `check()` returns the notice text, or null while there is none. */
export interface PreemptionProbe {
  check(): Promise<string | null>;
}

/** A probe for one provider at `base`; throws from `check` when the service answers oddly. */
export function preemptionProbe(
  provider: Exclude<PreemptionProvider, "none">,
  base: string,
  timeoutMs: number,
): PreemptionProbe {
  const root = base.replace(/\/+$/, "");
  if (provider === "gcp") {
    return {
      async check() {
        const res = await fetch(`${root}/computeMetadata/v1/instance/preempted`, {
          headers: { "Metadata-Flavor": "Google" },
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = (await res.text()).trim();
        if (!res.ok) throw new Error(`GCP metadata answered ${res.status}`);
        return body.toUpperCase() === "TRUE" ? "preempted: TRUE" : null;
      },
    };
  }
  let token: { value: string; at: number } | null = null;
  const getToken = async (): Promise<string> => {
    if (token && Date.now() - token.at < AWS_TOKEN_RENEW_MS) return token.value;
    const res = await fetch(`${root}/latest/api/token`, {
      method: "PUT",
      headers: { "X-aws-ec2-metadata-token-ttl-seconds": String(AWS_TOKEN_TTL_S) },
      signal: AbortSignal.timeout(timeoutMs),
    });
    const value = await res.text();
    if (!res.ok) throw new Error(`IMDSv2 token request answered ${res.status}`);
    token = { value, at: Date.now() };
    return value;
  };
  return {
    async check() {
      const res = await fetch(`${root}/latest/meta-data/spot/instance-action`, {
        headers: { "X-aws-ec2-metadata-token": await getToken() },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = await res.text();
      if (res.status === 404) return null;
      // An expired or revoked token: fetch a new one on the next poll.
      if (res.status === 401) token = null;
      if (!res.ok) throw new Error(`IMDS instance-action answered ${res.status}`);
      return body.trim() || "instance-action";
    },
  };
}

/**
 * Polls until a notice arrives (then calls `onNotice` once and stops) or `stop()` is called.
 * A failing poll is logged (a warning the first time in a row, then debug) and retried; it never
 * stops the node. Returns a no-op watch for provider `none`.
 */
export function watchPreemption(
  opts: PreemptionWatchOptions,
  onNotice: (notice: string) => void,
  log: Logger,
): { stop(): void } {
  if (opts.provider === "none") return { stop() {} };
  const wlog = log.child({ module: "preemption" });
  const base = opts.metadataUrl ?? METADATA_URLS[opts.provider];
  const probe = preemptionProbe(opts.provider, base, opts.requestTimeoutMs);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failing = false;
  const poll = async () => {
    try {
      const notice = await probe.check();
      if (failing) wlog.info({ provider: opts.provider }, "metadata service reachable again");
      failing = false;
      if (notice !== null && !stopped) {
        stopped = true;
        wlog.warn({ provider: opts.provider, notice }, "preemption notice");
        onNotice(notice);
        return;
      }
    } catch (err) {
      const fields = { provider: opts.provider, url: base, err: (err as Error).message };
      if (failing) wlog.debug(fields, "preemption poll failed");
      else wlog.warn(fields, "preemption poll failed; retrying");
      failing = true;
    }
    // unref: the watch alone never keeps the process alive.
    if (!stopped) timer = setTimeout(poll, opts.pollMs).unref();
  };
  wlog.info({ provider: opts.provider, url: base, pollMs: opts.pollMs }, "watching for preemption notices");
  detach(poll(), wlog, "preemption poll");
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
