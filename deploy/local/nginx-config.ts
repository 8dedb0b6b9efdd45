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
  return withUpstream(
    withUpstream(conf, 'chat_api', upstreams.api),
    'chat_events',
    upstreams.events,
  ).replace(listen, `$1listen ${upstreams.listen};`);
}
