import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { memoryPages, validateXML } from 'xmllint-wasm';
import { MESSAGES, type Scheme } from './pain001.js';

/**
 * Validation of a pain.001 file against the official schema of its scheme (./xsd, see SOURCE.md),
 * with libxml2's xmllint compiled to WebAssembly (xmllint-wasm): the file that fails never leaves.
 */

const schemas = new Map<string, string>();

function schemaText(file: string): string {
  let text = schemas.get(file);
  if (text === undefined) {
    text = fs.readFileSync(fileURLToPath(new URL(`./xsd/${file}`, import.meta.url)), 'utf8');
    schemas.set(file, text);
  }
  return text;
}

export interface Validation {
  valid: boolean;
  /** The validator's messages (empty when valid), one a line as xmllint prints them. */
  errors: string[];
  /** Every message with the line of the file it concerns, uncapped, to find the payout at fault. */
  failures: { line: number | undefined; message: string }[];
}

/** Errors reported at most; a file of 500 payouts with one wrong field would otherwise list 500. */
const ERRORS_MAX = 20;

export async function validatePain001(xml: string, scheme: Scheme): Promise<Validation> {
  const { xsd } = MESSAGES[scheme];
  const result = await validateXML({
    xml: [{ fileName: 'pain001.xml', contents: xml }],
    schema: [{ fileName: xsd, contents: schemaText(xsd) }],
    // A file of tens of thousands of payouts is a few tens of MiB once parsed.
    maxMemoryPages: 1024 * memoryPages.MiB,
  });
  const errors = result.errors.slice(0, ERRORS_MAX).map((e) => (e.loc ? `line ${e.loc.lineNumber}: ${e.message}` : e.message));
  if (result.errors.length > ERRORS_MAX) errors.push(`… and ${result.errors.length - ERRORS_MAX} more`);
  const failures = result.errors.map((e) => ({ line: e.loc?.lineNumber, message: e.message }));
  return { valid: result.valid, errors, failures };
}
