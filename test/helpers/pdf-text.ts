import { inflateSync } from 'node:zlib';

/**
 * The text of a PDF as a reader sees it, a line at a time: every content stream inflated, every
 * text object's string (hex or literal, Windows-1252 as the standard fonts encode it) placed where
 * its text matrix puts it, and the pieces of one page at one height joined left to right with " | ".
 * Enough for the documents Corridor writes (pdfkit, standard fonts); not a general PDF reader.
 */
export interface PdfText {
  /** Lines top to bottom, page after page, the cells of a line joined with " | ". */
  lines: string[];
  /** Every line's cells, as `lines` joins them. */
  rows: string[][];
  pages: number;
}

const windows1252 = new TextDecoder('windows-1252');

function decodeString(token: string): string {
  if (token.startsWith('<')) return windows1252.decode(Buffer.from(token.slice(1, -1).replace(/\s+/g, ''), 'hex'));
  // A literal string: ( … ) with backslash escapes.
  const body = token.slice(1, -1).replace(/\\([nrtbf()\\]|[0-7]{1,3})/g, (_m, e: string) => {
    const map: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '(': '(', ')': ')', '\\': '\\' };
    return map[e] ?? String.fromCharCode(parseInt(e, 8));
  });
  return windows1252.decode(Buffer.from(body, 'latin1'));
}

/** The text runs of one content stream: where each begins and what it says. */
function runsOf(content: string): { x: number; y: number; text: string }[] {
  const runs: { x: number; y: number; text: string }[] = [];
  for (const block of content.matchAll(/BT([\s\S]*?)ET/g)) {
    const body = block[1] ?? '';
    const tm = /([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) Tm/.exec(body);
    const strings = [...body.matchAll(/<[0-9a-fA-F\s]*>|\((?:\\.|[^\\)])*\)/g)].map((m) => decodeString(m[0]));
    if (strings.length === 0) continue;
    runs.push({ x: Number(tm?.[5] ?? 0), y: Number(tm?.[6] ?? 0), text: strings.join('') });
  }
  return runs;
}

export function pdfText(pdf: Buffer): PdfText {
  if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-') throw new Error('not a PDF: it does not start with %PDF-');
  if (!pdf.subarray(-1024).toString('latin1').includes('%%EOF')) throw new Error('not a whole PDF: no %%EOF at its end');
  const raw = pdf.toString('latin1');
  const rows: string[][] = [];
  let pages = 0;
  for (const m of raw.matchAll(/stream\r?\n/g)) {
    if (raw.slice(Math.max(0, m.index - 3), m.index) === 'end') continue;
    const start = m.index + m[0].length;
    const end = raw.indexOf('endstream', start);
    let content: string;
    try {
      content = inflateSync(pdf.subarray(start, end)).toString('latin1');
    } catch {
      content = pdf.subarray(start, end).toString('latin1');
    }
    const runs = runsOf(content);
    if (runs.length === 0) continue;
    pages += 1;
    const byHeight = new Map<number, { x: number; text: string }[]>();
    for (const r of runs) {
      const y = Math.round(r.y);
      byHeight.set(y, [...(byHeight.get(y) ?? []), { x: r.x, text: r.text }]);
    }
    // PDF heights grow upwards: the top line has the largest y.
    for (const [, cells] of [...byHeight].sort((a, b) => b[0] - a[0])) {
      rows.push(cells.sort((a, b) => a.x - b.x).map((c) => c.text.trim()).filter((t) => t !== ''));
    }
  }
  return { rows, lines: rows.map((r) => r.join(' | ')), pages };
}
