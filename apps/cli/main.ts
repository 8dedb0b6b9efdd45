import { ApiError } from '../../libs/core/errors';
import { CommandFailed, UsageError } from './args';
import { configOrExit, createAppContext } from '../../libs/runtime/create-app-context';
import { deleteUnclaimedAttachmentsCommand } from './commands/attachments';
import { unlockUserCommand } from './commands/auth';
import { syncLdapUsersCommand } from './commands/ldap';
import { backupCommand, restoreCommand } from './commands/backup';
import { sendTestEmailCommand } from './commands/email';
import { exportCommand, importCommand } from './commands/import-export';
import { checkCommand } from './commands/check';
import { generateInviteLinkCommand } from './commands/invites';
import { moveJobsToQueueSlotsCommand, purgeQueueCommand, queuesCommand } from './commands/jobs';
import { migrateCommand } from './commands/migrate';
import { grantCreateUsersCommand } from './commands/permissions';
import { registerPushServerCommand } from './commands/push';
import {
  changeSubdomainCommand,
  createRealmCommand,
  deactivateRealmCommand,
  deleteRealmCommand,
  listRealmsCommand,
  reactivateRealmCommand,
  renameRealmCommand,
} from './commands/realms';
import { seedDemoCommand } from './commands/seed-demo';
import { createScimTokenCommand, revokeScimTokenCommand } from './commands/scim';
import { moveUploadsToS3Command } from './commands/storage';
import {
  changeEmailCommand,
  changeRoleCommand,
  createBotCommand,
  createUserCommand,
  deactivateUserCommand,
  listUsersCommand,
  reactivateUserCommand,
  regenerateApiKeyCommand,
  setPasswordCommand,
  showAdminsCommand,
  zuliprcCommand,
} from './commands/users';
import type { AppContext } from '../../libs/core/context';

type Command = (ctx: AppContext, argv: string[]) => Promise<Record<string, unknown>>;

const COMMANDS: Record<string, { run: Command; help: string }> = {
  'create-realm': {
    run: createRealmCommand,
    help: '--subdomain S --name N --owner-email E --owner-name N [--password P]',
  },
  'list-realms': { run: listRealmsCommand, help: '' },
  'rename-realm': { run: renameRealmCommand, help: '--realm S --name N' },
  'deactivate-realm': { run: deactivateRealmCommand, help: '--realm S' },
  'reactivate-realm': { run: reactivateRealmCommand, help: '--realm S' },
  'delete-realm': {
    run: deleteRealmCommand,
    help: '--realm S --confirm S (deactivate it first; deletes every row and upload for good)',
  },
  'change-subdomain': { run: changeSubdomainCommand, help: '--realm S --new-subdomain T' },
  'generate-invite-link': {
    run: generateInviteLinkCommand,
    help: '--realm S --referred-by EMAIL|ID [--role ROLE] [--expires-in-minutes N|never]',
  },
  'show-admins': { run: showAdminsCommand, help: '--realm S' },
  'list-users': { run: listUsersCommand, help: '--realm S [--all]' },
  'create-user': {
    run: createUserCommand,
    help: '--realm S --email E --full-name N [--role owner|admin|moderator|member|guest] [--password P]',
  },
  'create-bot': {
    run: createBotCommand,
    help: '--realm S --owner EMAIL --full-name N --short-name X',
  },
  'change-role': { run: changeRoleCommand, help: '--realm S --user EMAIL|ID --role ROLE' },
  'grant-create-users': {
    run: grantCreateUsersCommand,
    help: '--realm S --user EMAIL|ID [--revoke]',
  },
  'deactivate-user': {
    run: deactivateUserCommand,
    help: '--realm S --user EMAIL|ID [--notify [--comment TEXT]]',
  },
  'reactivate-user': { run: reactivateUserCommand, help: '--realm S --user EMAIL|ID' },
  'change-email': { run: changeEmailCommand, help: '--realm S --user EMAIL|ID --new-email E' },
  'set-password': {
    run: setPasswordCommand,
    help: '--realm S --user EMAIL|ID (--password P | --password-stdin)',
  },
  'unlock-user': { run: unlockUserCommand, help: '--username EMAIL' },
  'create-scim-token': {
    run: createScimTokenCommand,
    help: '--realm S --client NAME [--given-family-names] (prints the bearer token once)',
  },
  'revoke-scim-token': { run: revokeScimTokenCommand, help: '--realm S --client NAME' },
  'sync-ldap-users': { run: syncLdapUsersCommand, help: '[--realm S] [--dry-run]' },
  'regenerate-api-key': { run: regenerateApiKeyCommand, help: '--realm S --user EMAIL|ID' },
  zuliprc: { run: zuliprcCommand, help: '--realm S --user EMAIL|ID' },
  'delete-unclaimed-attachments': {
    run: deleteUnclaimedAttachmentsCommand,
    help: '[--days N]',
  },
  'move-uploads-to-s3': { run: moveUploadsToS3Command, help: '[--from DIR] [--delete-local]' },
  'send-test-email': { run: sendTestEmailCommand, help: '--to EMAIL' },
  backup: { run: backupCommand, help: '(--to DIR | --into ROOT [--keep N])' },
  import: {
    run: importCommand,
    help:
      '--from PATH --subdomain S [--format zulip|slack|mattermost] [--team T] [--slack-token X] ' +
      '[--on-missing stop|skip] [--max-unpacked-gib N]',
  },
  export: { run: exportCommand, help: '--realm S --to FILE (.tar.gz in Zulip export format)' },
  restore: { run: restoreCommand, help: '--from DIR (into an empty database)' },
  'register-push-server': {
    run: registerPushServerCommand,
    help: '--contact-email E [--hostname H] (with PUSH_NOTIFICATION_BOUNCER_URL, ZULIP_ORG_ID, ZULIP_ORG_KEY)',
  },
  migrate: { run: migrateCommand, help: '[--status | --check]' },
  queues: {
    run: queuesCommand,
    help: '[--queue NAME] (job counts per state; failed jobs of NAME)',
  },
  'purge-queue': {
    run: purgeQueueCommand,
    help: '--queue NAME --state waiting|delayed|failed|completed|paused',
  },
  check: {
    run: checkCommand,
    help: '[--timeout-seconds N] (config, PostgreSQL and migrations, Redis, upload store; exit 1 if not)',
  },
  'move-jobs-to-queue-slots': {
    run: moveJobsToQueueSlotsCommand,
    help: "(workers do it at start: moves jobs left under 0.1.0's shared prefix to their queue's slot)",
  },
  'seed-demo': {
    run: seedDemoCommand,
    help: '[--subdomain demo] [--password P] [--domain example.com]',
  },
};

function usage(): string {
  return [
    'usage: npm run --silent cli -- <command> [flags] [--json]',
    '',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name} ${c.help}`),
  ].join('\n');
}

function printHuman(command: string, result: Record<string, unknown>): void {
  if (command === 'zuliprc' && typeof result.zuliprc === 'string') {
    process.stdout.write(result.zuliprc);
    return;
  }
  for (const [key, value] of Object.entries(result)) {
    console.log(`${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const entry = command ? COMMANDS[command] : undefined;
  if (command === undefined || !entry) {
    // Asked for, the usage is the answer (stdout, status 0); after a mistake it explains it.
    if (command === undefined || ['help', '--help', '-h'].includes(command)) {
      console.log(usage());
      return 0;
    }
    console.error(`unknown command ${command}`);
    console.error(usage());
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(`usage: npm run --silent cli -- ${command} ${entry.help}`.trimEnd());
    return 0;
  }
  const json = rest.includes('--json');
  // Logs stay off stdout, which carries the command's answer.
  const ctx = createAppContext(configOrExit(), {
    logLevel: 'warn',
    maxConnections: 2,
    logStream: 'stderr',
  });
  try {
    const result = await entry.run(ctx, rest);
    if (json) console.log(JSON.stringify(result));
    else printHuman(command, result);
    return 0;
  } catch (err) {
    const message =
      err instanceof UsageError || err instanceof ApiError || err instanceof CommandFailed
        ? err.message
        : String((err as Error)?.stack ?? err);
    if (json) console.log(JSON.stringify({ error: message }));
    console.error(`${command}: ${message}`);
    if (err instanceof UsageError) {
      console.error(`usage: npm run --silent cli -- ${command} ${entry.help}`.trimEnd());
      return 2;
    }
    return 1;
  } finally {
    await ctx.close();
  }
}

void main(process.argv.slice(2)).then((code) => process.exit(code));
