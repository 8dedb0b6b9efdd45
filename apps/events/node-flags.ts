/**
 * Node flags every events process starts with (package.json, compose, Kubernetes and the local
 * cluster name them too; test/deploy checks they agree). Prisma's query compiler is WebAssembly,
 * compiled function by function on first use instead of whole at start: an events process loads
 * Prisma only to register a queue through `GET /events`, and runs few of its queries.
 *
 * The young generation keeps V8's default size. A 1 MB one kept 10,000 idle polls near 300 MB
 * while Prisma was loaded, but its scavenges took 40 to 70 % of the process during a message to
 * 10,000 waiting polls; without Prisma the same polls hold 225-260 MB either way
 * (`git show c6c1688:docs/benchmarks.md`, section 4).
 */
export const EVENTS_NODE_FLAGS = ['--wasm-lazy-compilation'];
