import { describe, expect, it } from 'vitest';
import { invertRate } from '../../src/platform/lib/money.js';
import { bankReason, failureReason, rate, rateFigure, status, statusFamily } from '../../src/faces/web/codes.js';

/** The one mapping of codes to words and the one rate formatter (issue 24, point 5). */
describe('codes in words and rates', () => {
  it('shows a rate to four decimals, or four significant digits below 0.1, rounded half up', () => {
    expect(rateFigure('1.0843')).toBe('1.0843');
    expect(rateFigure('1.08435')).toBe('1.0844');
    expect(rateFigure(invertRate('1.0843'))).toBe('0.9223');
    expect(rateFigure('162.345678')).toBe('162.3457');
    expect(rateFigure('0.006159123')).toBe('0.006159');
    expect(rateFigure('0.00001234567')).toBe('0.00001235');
    expect(rate({ from: 'EUR', to: 'USD', rate: '1.0843' }).toString()).toContain('1 EUR = 1.0843 USD · 1 USD = 0.9223 EUR');
  });

  it('puts the code beside its words, and colours states by family', () => {
    expect(status('awaiting_funds').toString()).toContain('awaiting funds <code class="code">awaiting_funds</code>');
    expect(status('paid').toString()).not.toContain('<code');
    expect([statusFamily('paid'), statusFamily('completed'), statusFamily('funds_received')]).toEqual(['done', 'done', 'done']);
    expect([statusFamily('failed'), statusFamily('cancelled'), statusFamily('expired')]).toEqual(['stopped', 'stopped', 'stopped']);
    expect([statusFamily('queued'), statusFamily('awaiting_funds'), statusFamily('more_info_requested')]).toEqual(['moving', 'moving', 'moving']);
    expect(bankReason({ code: 'AC04', description: 'x' })?.toString()).toContain('closed account number <code class="code">AC04</code>');
    expect(bankReason({ code: 'ZZ99', description: 'Bank text' })?.toString()).toContain('Bank text <code class="code">ZZ99</code>');
    expect(failureReason('insufficient_balance')?.toString()).toContain('the balance could not cover the amount and its fee <code class="code">insufficient_balance</code>');
    expect(failureReason('Rejected by the bank: AM04 Amount of funds available')?.toString()).toContain('Rejected by the bank: <span class="reason" title="Amount of funds available">insufficient funds <code class="code">AM04</code>');
    expect(failureReason('typed by an operator')?.toString()).toContain('typed by an operator');
    // Who must act, as the bank connector writes it after the reason, stays in view.
    const rejected = failureReason("Rejected by the bank: AC01 Format of the account number specified is not correct. Who acts: the workspace, which corrects the beneficiary's details")?.toString() ?? '';
    expect(rejected).toContain('incorrect account number <code class="code">AC01</code></span>. Who acts: the workspace, which corrects the beneficiary&#39;s details</span>');
  });
});
