/**
 * The ground floor of node/: what every room may use and that uses no room: bounded collections,
 * the logger, and peer ids as wire bytes.
 */
export { BoundedLru, BoundedMap, BoundedSet } from "./bounded.js";
export { createLogger, defaultLoggerOptions, detach, LOG_LEVELS, type Logger, type LoggerOptions, type LogLevel } from "./logger.js";
export { peerIdBytes, peerIdOfBytes } from "./peer-bytes.js";
export { clearProgress, progressAwareStdout, reportProgress } from "./progress.js";
