/**
 * Registration cost (not a test): `npx tsx bench/register.ts`.
 *
 * Starts one `api` process against a scratch database holding an organization of BENCH_USERS
 * members (default 2,000) in channels of 50, then has BENCH_REGISTERS members (default 200), one
 * at a time, call `POST /register` the way the web and mobile apps do: Basic auth, no
 * `fetch_event_types` (the whole initial state: every user, channel, subscription, setting), and
 * prints p50 / p99 latency, the api process's CPU time per registration (which, unlike latency,
 * a busy machine changes little) and the response size.
 */
import { makeRealm, makeUser } from '../test/factories';
import { makeChannel } from '../test/channel-factories';
import { startTier } from '../test/multiprocess/processes';
import { cpuMsOf } from './realtime-clients';
import { bulkMembers, percentile, withScratchWorld } from './scratch-world';

const USERS = Number(process.env.BENCH_USERS ?? 2000);
const REGISTERS = Number(process.env.BENCH_REGISTERS ?? 200);
const CHANNEL_SIZE = 50;

async function main() {
  const report = await withScratchWorld({}, async (ctx, config) => {
    const org = await makeRealm(ctx);
    const owner = await makeUser(ctx, org.realm, { fullName: 'Owner' });
    const members = await bulkMembers(ctx, org.realm.id, USERS - 1, 'reg');
    for (let i = 0; i < members.length; i += CHANNEL_SIZE) {
      const channel = await makeChannel(ctx, org.realm, {
        name: `channel-${i / CHANNEL_SIZE}`,
        subscribers: [owner.user],
      });
      await ctx.db.subscription.createMany({
        data: members.slice(i, i + CHANNEL_SIZE).map((m) => ({
          userId: m.id,
          recipientId: channel.recipientId!,
          color: '#c2c2c2',
        })),
      });
    }
    const api = await startTier('api', config);
    try {
      const times: number[] = [];
      let bytes = 0;
      let cpuFrom = 0;
      for (let i = 0; i < REGISTERS; i++) {
        if (i === 10) cpuFrom = cpuMsOf(api.child.pid!);
        const member = members[(i * 7919) % members.length];
        const started = performance.now();
        const res = await fetch(`${api.url}/api/v1/register`, {
          method: 'POST',
          headers: {
            Host: org.host,
            Authorization: member.auth,
            'Content-Type': 'application/x-www-form-urlencoded',
          },
          body: '',
        });
        const body = await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`register: ${res.status}`);
        // The first few warm the process up.
        if (i >= 10) times.push(performance.now() - started);
        bytes = body.byteLength;
      }
      times.sort((a, b) => a - b);
      return {
        users: USERS,
        registers: times.length,
        p50: Math.round(percentile(times, 50) * 10) / 10,
        p99: Math.round(percentile(times, 99) * 10) / 10,
        cpuMsPerRegister:
          Math.round(((cpuMsOf(api.child.pid!) - cpuFrom) / times.length) * 10) / 10,
        responseKiB: Math.round(bytes / 1024),
      };
    } finally {
      await api.stop();
    }
  });
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
