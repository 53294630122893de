/** Free TCP ports for a test that must name its ports before the processes start (node/network/free-port.ts). */
export { freePort } from "../../node/network/free-port.js";
