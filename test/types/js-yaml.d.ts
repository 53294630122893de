/** The part of js-yaml (a dev dependency without bundled types) the tests use. */
declare module "js-yaml" {
  export function load(text: string): unknown;
}
