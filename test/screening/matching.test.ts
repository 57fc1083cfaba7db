import { describe, expect, it } from 'vitest';
import { parseListFile } from '../../src/controls/screening/lists/index.js';
import { ListIndex, type ListEntry, type ListName } from '../../src/controls/screening/matching.js';
import { birthDate, countryCode, nameTokens } from '../../src/controls/screening/normalize.js';
import { fixture, ofacCsvSet } from './helpers.js';

/** The official formats, read from the fixtures in test/fixtures/sanctions (see SOURCE.md there). */
describe('sanctions list files', () => {
  const parsed = (list: ListName, body: Buffer) => parseListFile(list, body);

  it('reads OFAC’s CSV set (SDN, ALT, ADD concatenated): entries, aliases, remarks, addresses', () => {
    const { format, entries } = parsed('ofac-sdn', ofacCsvSet());
    expect(format).toBe('ofac-csv');
    expect(entries).toHaveLength(5);
    expect(entries.filter((e) => e.kind === 'individual')).toHaveLength(2);
    expect(entries.reduce((n, e) => n + e.aliases.length, 0)).toBe(3);
    expect(entries.find((e) => e.entryId === '9647')).toMatchObject({ name: 'Vladimir Vladimirovich PUTIN', aliases: ['Vladimir PUTIN'], datesOfBirth: ['1952-10-07'], countries: ['RU'] });
    expect(entries.find((e) => e.entryId === '7157')?.countries).toEqual(['KP']);
    expect(entries.find((e) => e.entryId === '173')).toMatchObject({ kind: 'entity', countries: ['GB'], programs: ['CUBA'] });
    expect(entries.find((e) => e.entryId === '15036')?.kind).toBe('vessel');
  });

  it('reads OFAC’s SDN.XML', () => {
    const { format, entries } = parsed('ofac-sdn', fixture('ofac/sdn.xml'));
    expect(format).toBe('ofac-xml');
    expect(entries.map((e) => e.entryId)).toEqual(['36', '7157', '9647']);
    expect(entries[1]).toMatchObject({ kind: 'individual', name: 'Jong Un KIM', aliases: ['Jong-un KIM'], datesOfBirth: ['1984-01-08'], countries: ['KP'], programs: ['DPRK3'] });
    expect(entries[0]).toMatchObject({ kind: 'entity', aliases: ['AERO-CARIBBEAN'], countries: ['CU'] });
  });

  it('reads the UN consolidated list XML (individuals and entities; Low-quality aliases left out)', () => {
    const { format, entries } = parsed('un', fixture('un/consolidated.xml'));
    expect(format).toBe('un-xml');
    expect(entries).toHaveLength(3);
    expect(entries.filter((e) => e.kind === 'entity').map((e) => e.entryId)).toEqual(['QDe.004']);
    expect(entries.find((e) => e.entryId === 'QDi.999')).toMatchObject({ name: 'ABDUL RAHMAN YASIN', datesOfBirth: ['1960-04-10'], countries: ['IQ', 'US'] });
    expect(entries.find((e) => e.entryId === 'QDi.999')?.aliases).not.toContain('Aboud');
    expect(entries.find((e) => e.entryId === 'CDi.001')).toMatchObject({ datesOfBirth: ['1971'], countries: ['CD', 'RW'] });
  });

  it('reads the EU consolidated list XML', () => {
    const { format, entries } = parsed('eu', fixture('eu/sanctions.xml'));
    expect(format).toBe('eu-xml');
    expect(entries).toHaveLength(3);
    expect(entries[0]).toMatchObject({ entryId: 'EU.27.28', kind: 'individual', name: 'Saddam Hussein Al-Tikriti', aliases: ['Abu Ali'], datesOfBirth: ['1937-04-28'], countries: ['IQ'] });
    expect(entries[2]).toMatchObject({ kind: 'entity', aliases: ['Severnaya Verf'], countries: ['RU'] });
  });

  it('reads OFSI’s ConList.csv: rows of one Group ID are one entry', () => {
    const { format, entries } = parsed('uk-ofsi', fixture('uk/ConList.csv'));
    expect(format).toBe('uk-csv');
    expect(entries).toHaveLength(3);
    expect(entries[0]).toMatchObject({ entryId: '14596', kind: 'individual', name: 'Khizri Magomedovich ABAKAROV', datesOfBirth: ['1960-06-28'], countries: ['RU'] });
    expect(entries[0]?.aliases).toEqual(['АБАКАРОВ Хизри Магомедович', 'Khizri ABAKAROV']);
    expect(entries[2]).toMatchObject({ entryId: '15900', kind: 'entity', aliases: ['SEVERNAYA VERF'] });
  });

  it('refuses a file that is not its list', () => {
    expect(() => parseListFile('un', fixture('eu/sanctions.xml'))).toThrow(/CONSOLIDATED_LIST/);
    expect(() => parseListFile('uk-ofsi', ofacCsvSet())).toThrow(/Name 6/);
  });
});

describe('normalisation', () => {
  it('transliterates, lower-cases, drops punctuation, honorifics and legal forms', () => {
    expect(nameTokens('Владимир Путин')).toEqual(['vladimir', 'putin']);
    expect(nameTokens('Dr. Müller-Lüdenscheidt')).toEqual(['muller', 'ludenscheidt']);
    expect(nameTokens("Sheikh Abd al-Rahman O'Neil")).toEqual(['abd', 'rahman', 'oneil']);
    expect(nameTokens('ANGLO-CARIBBEAN CO., LTD.')).toEqual(['anglo', 'caribbean']);
  });

  it('reads the lists’ dates and countries', () => {
    expect(birthDate('12 Mar 1960')).toBe('1960-03-12');
    expect(birthDate('00/00/1960')).toBe('1960');
    expect(birthDate('00/06/1960')).toBe('1960-06');
    expect(birthDate('circa 1955')).toBe('1955');
    expect(countryCode('Korea, North')).toBe('KP');
    expect(countryCode('Russia')).toBe('RU');
    expect(countryCode('Iran (Islamic Republic of)')).toBe('IR');
    expect(countryCode('Atlantis')).toBeUndefined();
  });
});

describe('matching', () => {
  const entries = (list: ListName, body: Buffer): ListEntry[] => parseListFile(list, body).entries;
  const ofac = new ListIndex('ofac-sdn', 'v1', entries('ofac-sdn', ofacCsvSet()));
  const un = new ListIndex('un', 'v2', entries('un', fixture('un/consolidated.xml')));
  const eu = new ListIndex('eu', 'v3', entries('eu', fixture('eu/sanctions.xml')));
  const hit = (index: ListIndex, name: string, more: object = {}) => index.screen({ name, ...more }, 0.9)[0];

  it('copes with transliteration (Cyrillic, accents)', () => {
    expect(hit(ofac, 'Владимир Путин')).toMatchObject({ entryId: '9647', matchedName: 'Vladimir PUTIN' });
    expect(hit(eu, 'Роман Абрамович')?.entryId).toBe('EU.3761.89');
    expect(hit(eu, 'Román Abramóvich')?.entryId).toBe('EU.3761.89');
  });

  it('copes with word order', () => {
    expect(hit(ofac, 'Putin Vladimir Vladimirovich')?.score).toBe(1);
    expect(hit(ofac, 'Jong Un Kim')?.entryId).toBe('7157');
  });

  it('copes with initials', () => {
    const found = hit(ofac, 'V. V. Putin');
    expect(found?.entryId).toBe('9647');
    expect(found?.score).toBeLessThan(1);
  });

  it('copes with aliases and names written together or apart', () => {
    expect(hit(un, 'The Base')).toMatchObject({ entryId: 'QDe.004', entryName: 'AL-QAIDA', matchedName: 'The Base' });
    expect(hit(eu, 'Abu Ali')?.entryId).toBe('EU.27.28');
    expect(hit(un, 'Abdulrahman Yasin')?.entryId).toBe('QDi.999');
    expect(hit(ofac, 'Aerocaribbean')?.entryId).toBe('36');
  });

  it('copes with spelling variants (Jaro-Winkler)', () => {
    expect(hit(ofac, 'Vladimir Poutine')?.entryId).toBe('9647');
    expect(hit(eu, 'Saddam Husein al Tikriti')?.entryId).toBe('EU.27.28');
  });

  it('does not match other names, a shared surname alone, or a shared first name', () => {
    for (const name of ['Ada Lovelace', 'Acme Payments Ltd', 'Putin', 'Vladimir Nabokov', 'Roman Polanski', 'Eric Clapton', 'Caribbean Airlines']) {
      expect([ofac, un, eu].flatMap((index) => index.screen({ name }, 0.9)), name).toEqual([]);
    }
  });

  it('is raised by a matching date of birth and country, lowered by different ones', () => {
    const plain = hit(ofac, 'Vladimir Poutine')?.score as number;
    expect(plain).toBeGreaterThanOrEqual(0.9);
    expect(plain).toBeLessThan(1);
    expect(hit(ofac, 'Vladimir Poutine', { dateOfBirth: '1952-10-07', country: 'RU' })?.score).toBeGreaterThan(plain);
    expect(ofac.screen({ name: 'Vladimir Putinov', dateOfBirth: '1990-01-01', country: 'FR' }, 0.9)).toEqual([]);
    expect(hit(ofac, 'Vladimir Putinov')?.entryId).toBe('9647');
    // A near miss on the name alone is brought over the threshold by a matching date of birth and country.
    const near = ofac.screen({ name: 'V Putin' }, 0.97);
    expect(near).toEqual([]);
    expect(ofac.screen({ name: 'V Putin', dateOfBirth: '1952-10-07', country: 'RU' }, 0.97)[0]?.entryId).toBe('9647');
  });

  // Issue 33 point 9: evasions that came back clear.
  it('folds look-alike letters of another script inside a Latin name (Cyrillic Р and Ј, Greek Ρ)', () => {
    expect(hit(ofac, 'Vladimir \u0420utin')?.entryId).toBe('9647');
    expect(hit(ofac, 'Vladimir \u03A1utin')?.entryId).toBe('9647');
    expect(hit(ofac, 'Kim \u0408ong Un')?.entryId).toBe('7157');
    expect(nameTokens('Vladim\u0456r \u0420utin')).toEqual(['vladimir', 'putin']);
    // A name wholly in another script is still transliterated, not folded: Путин is Putin.
    expect(nameTokens('\u041F\u0443\u0442\u0438\u043D')).toEqual(['putin']);
  });

  it('matches a listed name inside a longer business name, whichever type the name is given as', () => {
    for (const kind of ['business', 'individual', undefined] as const) {
      expect(ofac.screen({ name: 'Vladimir Putin Foundation', kind }, 0.9)[0]?.entryId, kind).toBe('9647');
      expect(ofac.screen({ name: 'Kim Jong Un Trading', kind }, 0.9)[0]?.entryId, kind).toBe('7157');
    }
    // A business sharing one word of a listed name is not that name's business.
    expect(ofac.screen({ name: 'Putin Foundation', kind: 'business' }, 0.9)).toEqual([]);
    expect(ofac.screen({ name: 'Vladimir Nabokov Foundation', kind: 'business' }, 0.9)).toEqual([]);
  });

  it('scores a name the same given as a person or as a business', () => {
    const asPerson = eu.screen({ name: 'Roman Abramovich', kind: 'individual' }, 0.9)[0];
    const asBusiness = eu.screen({ name: 'Roman Abramovich', kind: 'business' }, 0.9)[0];
    expect(asBusiness?.entryId).toBe('EU.3761.89');
    expect(asBusiness?.score).toBe(asPerson?.score);
  });

  it('joins a name split in two (Pu-tin, Pu tin)', () => {
    expect(hit(ofac, 'Vladimir Pu-tin')?.entryId).toBe('9647');
    expect(hit(ofac, 'Vladimir Pu tin')?.entryId).toBe('9647');
    expect(hit(ofac, 'Kim Jo-ng Un')?.entryId).toBe('7157');
  });
});
