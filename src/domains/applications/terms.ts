import fs from 'node:fs';
import type { Config } from '../../platform/config.js';
import { html } from '../../platform/lib/html.js';

/**
 * The terms document served at /terms/{version} (the URL GET /v2/terms answers by default): the
 * operator's own, CORRIDOR_TERMS_FILE (an HTML document, read once at start so a wrong path stops
 * the start), else the default shipped with Corridor, which says that it is one.
 */
export function termsDocument(config: Config): string {
  if (config.termsFile) return fs.readFileSync(config.termsFile, 'utf8');
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Terms of service, version ${config.termsVersion}</title></head>
<body>
<h1>Terms of service</h1>
<p>Terms version ${config.termsVersion}. Accepting them (POST /v2/applications/{id}/terms-acceptance) is part of an application for an account.</p>
<p>These are the default terms shipped with Corridor: the operator of this instance has not published its own.
By accepting them you agree that the operator may verify the information and documents of your application,
keep them as the law requires, and refuse or close an account that does not meet its requirements.</p>
<p>The operator publishes its own terms by setting CORRIDOR_TERMS_FILE (and CORRIDOR_TERMS_VERSION when they change).</p>
</body>
</html>
`.text;
}
