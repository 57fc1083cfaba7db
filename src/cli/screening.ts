import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '../platform/config.js';
import { DomainError } from '../platform/lib/errors.js';
import { newRequestId } from '../platform/lib/ids.js';
import { appendAudit } from '../controls/audit/audit.service.js';
import { LIST_NAMES, loadList, type ListName } from '../controls/screening/screening.service.js';
import { openContext } from '../runtime.js';

/**
 * `corridor screening load --list ofac-sdn|un|eu|uk-ofsi --file PATH [--file PATH …]`: loads a list
 * file (read from disk, never downloaded) as a new version of its list, as the operator API does, and
 * writes the load to the audit log (actor `cli`). Several files are for OFAC's CSV set (SDN.CSV,
 * ALT.CSV, ADD.CSV), read as one. Prints the version with its counts.
 */
export async function screeningCommand(config: Config, sub: string | undefined, args: string[], fail: (message: string) => never): Promise<void> {
  if (sub !== 'load') fail('unknown screening command (screening load --list LIST --file PATH)');
  const { values } = parseArgs({ args, options: { list: { type: 'string' }, file: { type: 'string', multiple: true } } });
  const list = values.list as ListName | undefined;
  if (!list || !LIST_NAMES.includes(list)) fail(`--list must be one of ${LIST_NAMES.join(', ')}`);
  const files = values.file ?? [];
  if (files.length === 0) fail('--file is required');
  if (files.length > 1 && list !== 'ofac-sdn') fail('only ofac-sdn takes several files (its CSV set)');
  const missing = files.find((f) => !fs.existsSync(f) || !fs.statSync(f).isFile());
  if (missing) fail(`no file ${missing}`);
  const size = files.reduce((n, f) => n + fs.statSync(f).size, 0);
  if (size > config.screening.fileBytesMax) fail(`the files are larger than SCREENING_FILE_BYTES_MAX (${config.screening.fileBytesMax} bytes)`);
  // Concatenated with a line break between files, so the last row of one never runs into the next's first.
  const bytes = Buffer.concat(files.flatMap((f, i) => (i === 0 ? [fs.readFileSync(f)] : [Buffer.from('\n'), fs.readFileSync(f)])));
  const ctx = await openContext(config);
  try {
    const version = await ctx.db.tx(async (tx) => {
      const loaded = await loadList(tx, { list, bytes, loadedBy: 'cli' });
      await appendAudit(tx, {
        operatorKeyId: null,
        actor: 'cli',
        method: 'CLI',
        path: `corridor screening load --list ${list}`,
        statusCode: 201,
        requestId: newRequestId(),
        workspaceId: undefined,
        body: { files: files.map((f) => f.split(/[\\/]/).pop()), sha256: loaded.sha256, size: loaded.bytes },
      });
      return loaded;
    });
    process.stdout.write(`${JSON.stringify(version, null, 2)}\n`);
  } catch (err) {
    if (err instanceof DomainError) fail(err.details?.[0]?.message ?? err.message);
    throw err;
  } finally {
    await ctx.db.close();
  }
}
