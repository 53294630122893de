/** The ground floor of node/: what every room may use and that uses no room (bounded collections). */
export { BoundedLru, BoundedMap, BoundedSet } from "./bounded.js";
