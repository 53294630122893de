/**
 * Durable atomic file replacement: a temp file in the same directory (so rename is atomic),
 * fsync, rename over the target, fsync the directory. A kill at any moment leaves the old file or
 * the new one, never a mix.
 */
import { mkdir, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";

/** Makes temp names unique within a process, so overlapping writes never share a file. */
let counter = 0;

/** What to write: the bytes, or parts (bytes, or functions making them one at a time) for a file too large to build in memory. */
export type FileContent = Uint8Array | readonly (Uint8Array | (() => Uint8Array))[];

/**
 * Writes `content` to `path` atomically. `mode` applies at creation ("wx": the temp file must be
 * new), never by chmod afterwards, so a secret is not readable by others even briefly.
 */
export async function writeFileAtomic(path: string, content: FileContent, mode = 0o644): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = `${path}.tmp-${process.pid}-${++counter}`;
  await rm(tmp, { force: true });
  const fh = await open(tmp, "wx", mode);
  try {
    if (content instanceof Uint8Array) await fh.writeFile(content);
    else for (const p of content) await fh.write(typeof p === "function" ? p() : p);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  await rename(tmp, path);
  const dh = await open(dir, "r");
  await dh.sync().finally(() => dh.close());
}
