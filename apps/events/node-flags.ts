/**
 * Node flags every events process starts with (package.json, compose, Kubernetes and the local
 * cluster name them too; test/deploy checks they agree). The tier holds thousands of idle polls:
 * - a 1 MB young generation (V8's default grows it to 16 MB per semi-space) keeps the heap
 *   small, at the cost of more frequent, cheap scavenges;
 * - Prisma's query compiler is WebAssembly, compiled function by function on first use instead of
 *   whole at start (the tier runs only a few of its queries).
 * With 10,000 waiting polls one process measured 284-306 MB with them, 330 MB without
 * (docs/benchmarks.md, section 4).
 */
export const EVENTS_NODE_FLAGS = ['--max-semi-space-size=1', '--wasm-lazy-compilation'];
