import { describe, expect, it } from 'vitest';
import { compareNames } from '../../src/controls/recipient-checks/recipient-names.js';

describe("Corridor's comparison of the beneficiary's name with the rail's", () => {
  it('matches the same words whatever their order, case, accents and punctuation', () => {
    expect(compareNames('Ada Lovelace', 'ADA LOVELACE')).toBe('match');
    expect(compareNames('Lovelace, Ada', 'Ada Lovelace')).toBe('match');
    expect(compareNames('José Álvarez-Núñez', 'ALVAREZ NUNEZ JOSE')).toBe('match');
    expect(compareNames('Mr. Chinedu Okafor', 'OKAFOR CHINEDU')).toBe('match');
    expect(compareNames('Acme Trading Ltd', 'ACME TRADING LIMITED')).toBe('match');
    expect(compareNames('Kwame MacDonald', 'Kwame Mac Donald')).toBe('match');
  });

  it('calls a missing middle name, an initial or a typo a close match', () => {
    expect(compareNames('Ada Lovelace', 'Ada King Lovelace')).toBe('close_match');
    expect(compareNames('A. Lovelace', 'Ada Lovelace')).toBe('close_match');
    expect(compareNames('Ada Lovelace', 'Ada Lovelase')).toBe('close_match');
    expect(compareNames('Jon Smyth', 'John Smith')).toBe('close_match');
  });

  it('calls other names no match', () => {
    expect(compareNames('Ada Lovelace', 'Charles Babbage')).toBe('no_match');
    expect(compareNames('Ada Lovelace', 'Ada Byron King Lovelace Countess')).toBe('no_match');
    expect(compareNames('Ada', 'Ada Lovelace')).toBe('no_match');
    expect(compareNames('A L', 'Ada Lovelace')).toBe('no_match');
    expect(compareNames('Ada Lovelace', 'Ada Smith')).toBe('no_match');
    expect(compareNames('', 'Ada Lovelace')).toBe('no_match');
  });
});
