export interface NginxUpstreams {
  listen: string;
  api: string[];
  events: string[];
}

/**
 * deploy/nginx/chat.conf with another listen address and other upstream servers: what the local
 * cluster runs, so it tests the operators' file itself rather than a copy.
 */
export function renderNginxConfig(conf: string, upstreams: NginxUpstreams): string {
  const servers = (list: string[]) => list.map((s) => `    server ${s};`).join('\n');
  const withUpstream = (text: string, name: string, list: string[]) => {
    const block = new RegExp(`(upstream ${name} \\{\\n(?:.*\\n)*?)((?:\\s*server [^;]+;\\n)+)`);
    if (!block.test(text)) throw new Error(`deploy/nginx/chat.conf has no upstream ${name}`);
    return text.replace(block, (_m, head: string) => `${head}${servers(list)}\n`);
  };
  const listen = /^(\s*)listen [^;]+;$/m;
  if (!listen.test(conf)) throw new Error('deploy/nginx/chat.conf has no listen directive');
  return withUpstream(
    withUpstream(conf, 'chat_api', upstreams.api),
    'chat_events',
    upstreams.events,
  ).replace(listen, `$1listen ${upstreams.listen};`);
}
