import PDFDocument from 'pdfkit';
import type { Readable } from 'node:stream';

/**
 * PDF documents as Corridor writes them (statements, payment confirmations): A4, the PDF standard
 * fonts (Helvetica; text outside Windows-1252 is shown as "?"), a title block, facts as label and
 * value, and tables whose rows may be added while the document streams out, a page at a time.
 */

const MARGIN = 40;
const FONT = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const BODY_SIZE = 9;
const ROW_GAP = 3;
/** Tables are set smaller than the text around them, so that ids fit a column whole. */
const TABLE_SIZE = 7;

/** A column of a table: its heading, its share of the width, and whether its cells are figures (aligned right). */
export interface PdfColumn {
  label: string;
  width: number;
  numeric?: boolean;
}

/** Text the standard fonts can draw: Windows-1252 only, anything else as "?" (never a glyph the font lacks). */
function drawable(text: string): string {
  return text.replace(/[^\u0020-\u007e\u00a0-\u00ff\u20ac\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026]/g, '?');
}

export class PdfWriter {
  private readonly doc: PDFKit.PDFDocument;
  private table: { columns: readonly PdfColumn[]; xs: number[] } | undefined;

  constructor(meta: { title: string; author: string; subject?: string; landscape?: boolean }) {
    this.doc = new PDFDocument({
      size: 'A4',
      layout: meta.landscape ? 'landscape' : 'portrait',
      margin: MARGIN,
      info: { Title: drawable(meta.title), Author: drawable(meta.author), Subject: drawable(meta.subject ?? meta.title), Creator: 'Corridor' },
    });
    this.doc.font(FONT).fontSize(BODY_SIZE);
  }

  /** The document's bytes as they are written. */
  get stream(): Readable {
    return this.doc as unknown as Readable;
  }

  private get usableWidth(): number {
    return this.doc.page.width - 2 * MARGIN;
  }

  title(text: string, subtitle?: string): this {
    this.doc.font(BOLD).fontSize(16).text(drawable(text), MARGIN, MARGIN);
    if (subtitle) this.doc.font(FONT).fontSize(BODY_SIZE).fillColor('#444444').text(drawable(subtitle)).fillColor('black');
    this.doc.font(FONT).fontSize(BODY_SIZE).moveDown();
    return this;
  }

  heading(text: string): this {
    this.ensureRoom(2);
    this.doc.moveDown(0.5).font(BOLD).fontSize(11).text(drawable(text), MARGIN).font(FONT).fontSize(BODY_SIZE).moveDown(0.3);
    return this;
  }

  paragraph(text: string): this {
    this.doc.font(FONT).fontSize(BODY_SIZE).text(drawable(text), MARGIN, undefined, { width: this.usableWidth }).moveDown(0.5);
    return this;
  }

  /** Label and value pairs, one a line; a pair without a value is left out. */
  facts(pairs: readonly (readonly [string, string | null | undefined])[]): this {
    const labelWidth = 150;
    for (const [label, value] of pairs) {
      if (value === null || value === undefined || value === '') continue;
      this.ensureRoom(1);
      const y = this.doc.y;
      this.doc.font(BOLD).text(drawable(label), MARGIN, y, { width: labelWidth - 10, lineBreak: false });
      this.doc.font(FONT).text(drawable(value), MARGIN + labelWidth, y, { width: this.usableWidth - labelWidth });
      this.doc.y += ROW_GAP;
    }
    this.doc.x = MARGIN;
    return this;
  }

  /** Starts a table: the column headings (each column's width in points, scaled to the page); rows follow with row(). */
  startTable(columns: readonly PdfColumn[]): this {
    const total = columns.reduce((sum, c) => sum + c.width, 0);
    let x = MARGIN;
    const xs = columns.map((c) => {
      const at = x;
      x += (c.width / total) * this.usableWidth;
      return at;
    });
    this.table = { columns, xs };
    this.tableHeader();
    return this;
  }

  /** One row of the table started last: a cell a line, cut with an ellipsis when it is wider than its column. */
  row(cells: readonly (string | null | undefined)[], options: { bold?: boolean } = {}): this {
    const table = this.table;
    if (!table) throw new Error('row() before startTable()');
    if (this.ensureRoom(1)) this.tableHeader();
    this.cells(cells, options.bold ? BOLD : FONT);
    return this;
  }

  endTable(): this {
    this.table = undefined;
    this.doc.x = MARGIN;
    this.doc.moveDown();
    return this;
  }

  /** Ends the document: the stream then ends after its last bytes. */
  end(): void {
    this.doc.end();
  }

  /** Ends the stream with an error (the document cannot be finished). */
  fail(err: Error): void {
    this.doc.destroy(err);
  }

  private tableHeader(): void {
    const table = this.table;
    if (!table) return;
    this.cells(table.columns.map((c) => c.label), BOLD);
    const y = this.doc.y - ROW_GAP / 2;
    this.doc.moveTo(MARGIN, y).lineTo(MARGIN + this.usableWidth, y).lineWidth(0.5).stroke();
    this.doc.y += ROW_GAP;
  }

  private cells(cells: readonly (string | null | undefined)[], font: string): void {
    const table = this.table!;
    const y = this.doc.y;
    this.doc.fontSize(TABLE_SIZE);
    table.columns.forEach((column, i) => {
      const x = table.xs[i]!;
      const width = (table.xs[i + 1] ?? MARGIN + this.usableWidth) - x - 4;
      this.doc.font(font).text(drawable(cells[i] ?? ''), x, y, { width, align: column.numeric ? 'right' : 'left', ellipsis: true, height: TABLE_SIZE + 2 });
    });
    this.doc.font(FONT).fontSize(BODY_SIZE);
    this.doc.y = y + TABLE_SIZE + 2 + ROW_GAP;
  }

  /** Starts a new page when fewer than `lines` lines are left on this one; true when it did. */
  private ensureRoom(lines: number): boolean {
    if (this.doc.y + lines * (BODY_SIZE + 2 + ROW_GAP) <= this.doc.page.height - MARGIN) return false;
    this.doc.addPage();
    this.doc.font(FONT).fontSize(BODY_SIZE);
    return true;
  }
}
