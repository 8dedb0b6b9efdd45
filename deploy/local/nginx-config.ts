export interface NginxUpstreams {
  listen: string;
  api: string[];
  events: string[];
  /**
   * Poll affinity: events replica i was started with `EVENTS_REPLICA=i/n`, and a poll goes to the
   * home replica of its queue's partition (the queue id's leading number), or to the next one
   * while it is down. Needs the tiers' `DISPATCH_PARTITIONS`.
   */
  affinity?: { partitions: number };
  /**
   * A DNS server nginx asks again and again (compose: Docker's, `127.0.0.11`): each upstream
   * gets a shared-memory zone and its servers `resolve`, so replicas that start, stop or move
   * are found without reloading nginx (open-source nginx 1.27.3 and later).
   */
  resolver?: string;
}

/** Every upstream re-resolves its servers' names through `resolver`, as their TTL allows. */
function resolving(conf: string, resolver: string): string {
  const upstreams = conf.replace(
    /^upstream (\S+) \{\n([^}]*)\}/gm,
    (_block, name: string, body: string) =>
      `upstream ${name} {\n    zone ${name} 64k;\n${body.replace(
        /^(\s*server [^;]+);/gm,
        '$1 resolve;',
      )}}`,
  );
  const first = upstreams.search(/^upstream /m);
  if (first < 0) throw new Error('deploy/nginx/chat.conf has no upstream block');
  const directive = `\n# Docker's DNS, asked again when an answer is 10 s old.\nresolver ${resolver};\n\n`;
  return `${upstreams.slice(0, first)}${directive}${upstreams.slice(first)}`;
}

/**
 * The upstream groups and the map that send a poll to its partition's home replica: one group per
 * replica, holding it first and the others as backups (nginx's `backup` takes over only while
 * the first is down), and the map from queue id to group; other requests keep `chat_events`.
 */
function affinityBlocks(servers: string[], params: string, partitions: number): string {
  const n = servers.length;
  const groups = servers.map((home, i) => {
    const backups = servers
      .filter((s) => s !== home)
      .map((s) => `    server ${s}${params} backup;`);
    return [
      `upstream chat_events_home${i} {`,
      `    server ${home}${params};`,
      ...backups,
      '    keepalive 128;',
      '}',
    ].join('\n');
  });
  const homes = servers.map((_, i) => {
    const own = [...Array(partitions).keys()].filter((p) => p % n === i);
    return own.length ? `    "~^(${own.join('|')}):" chat_events_home${i};` : null;
  });
  const map = [
    'map $arg_queue_id $chat_events_pool {',
    '    default chat_events;',
    ...homes.filter((h) => h !== null),
    '}',
  ];
  return `${map.join('\n')}\n\n${groups.join('\n\n')}\n\n`;
}

/**
 * deploy/nginx/chat.conf with another listen address and other upstream servers: what the local
 * cluster runs, so it tests the operators' file itself rather than a copy.
 */
export function renderNginxConfig(conf: string, upstreams: NginxUpstreams): string {
  const withUpstream = (text: string, name: string, list: string[]) => {
    const block = new RegExp(`(upstream ${name} \\{\\n(?:.*\\n)*?)((?:\\s*server [^;]+;\\n)+)`);
    const found = block.exec(text);
    if (!found) throw new Error(`deploy/nginx/chat.conf has no upstream ${name}`);
    // Each new server gets the parameters (max_fails=...) of the file's first one.
    const params = /server \S+([^;]*);/.exec(found[2])?.[1] ?? '';
    const servers = list.map((s) => `    server ${s}${params};`).join('\n');
    return text.replace(block, (_m, head: string) => `${head}${servers}\n`);
  };
  const listen = /^(\s*)listen [^;]+;$/m;
  if (!listen.test(conf)) throw new Error('deploy/nginx/chat.conf has no listen directive');
  const rendered = withUpstream(
    withUpstream(conf, 'chat_api', upstreams.api),
    'chat_events',
    upstreams.events,
  ).replace(listen, `$1listen ${upstreams.listen};`);
  const resolved = (text: string) =>
    upstreams.resolver ? resolving(text, upstreams.resolver) : text;
  if (!upstreams.affinity) return resolved(rendered);
  const eventsParams = /upstream chat_events \{[^}]*?server \S+([^;]*);/.exec(conf)?.[1] ?? '';
  const pollPass = 'proxy_pass http://chat_events;';
  const server = rendered.indexOf('\nserver {');
  if (!rendered.includes(pollPass) || server < 0) {
    throw new Error('deploy/nginx/chat.conf has no server block passing polls to chat_events');
  }
  const blocks = affinityBlocks(upstreams.events, eventsParams, upstreams.affinity.partitions);
  return resolved(
    `${rendered.slice(0, server + 1)}${blocks}${rendered.slice(server + 1)}`.replace(
      pollPass,
      'proxy_pass http://$chat_events_pool;',
    ),
  );
}
