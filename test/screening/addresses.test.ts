import { describe, expect, it } from 'vitest';
import { addressKey } from '../../src/controls/screening/lists/addresses.js';
import { parseListFile } from '../../src/controls/screening/lists/index.js';
import { ofacSdn2019, ofacSdn2021 } from '../helpers/real-world.js';
import { fixture } from './helpers.js';

/** The digital-currency addresses of the real OFAC SDN files (../shared/real-world/sanctions/). */
describe('sanctions list addresses', () => {
  it('reads every "Digital Currency Address" of the July 2021 SDN set, those continued in SDN_COMMENTS.CSV included', () => {
    const parsed = parseListFile('ofac-sdn', ofacSdn2021());
    expect(parsed.entries).toHaveLength(8976);
    const byCurrency = new Map<string, number>();
    for (const a of parsed.addresses) byCurrency.set(a.currency, (byCurrency.get(a.currency) ?? 0) + 1);
    expect(Object.fromEntries(byCurrency)).toMatchObject({ XBT: expect.any(Number), ETH: 10, LTC: expect.any(Number), ZEC: expect.any(Number), XMR: 1, DASH: expect.any(Number) });
    // Entry 29703's SDN.CSV remarks stop at "Digital Currency Addres"; SDN_COMMENTS.CSV goes on "s - ETH 0x8576…".
    expect(parsed.addresses).toContainEqual({ entryId: '29703', entryName: 'Anton Nikolaeyvich ANDREYEV', currency: 'ETH', address: '0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c' });
    expect(parsed.addresses).toContainEqual({ entryId: '29703', entryName: 'Anton Nikolaeyvich ANDREYEV', currency: 'ZEC', address: 't1WSKwCDL1QYRRUrCCknEs5tDLhtGVYu9KM' });
    // SECONDEYE SOLUTION (30518): an address wholly in SDN_COMMENTS.CSV, in mixed case as published.
    expect(parsed.addresses).toContainEqual({ entryId: '30518', entryName: 'SECONDEYE SOLUTION', currency: 'ETH', address: '0x7Db418b5D567A4e0E8c59Ad71BE1FcE48f3E6107' });
    // Nothing that is not an address: every one is alphanumeric, no trailing punctuation.
    for (const a of parsed.addresses) expect(a.address).toMatch(/^[A-Za-z0-9]{20,}$/);
    // The entry keeps its other remarks (dates of birth, aliases from the continuation).
    expect(parsed.entries.find((e) => e.entryId === '28264')?.aliases).toEqual(expect.arrayContaining(['blackjack1987', 'khaleesi']));
  });

  it('reads the 2019 set\'s XBT addresses; comments for entries the file does not hold are left out', () => {
    const parsed = parseListFile('ofac-sdn', ofacSdn2019());
    expect(parsed.addresses).toEqual([
      { entryId: '26137', entryName: 'Ali KHORASHADIZADEH', currency: 'XBT', address: '149w62rY42aZBox8fGcmqNsXUzSStKeq8C' },
      { entryId: '26138', entryName: 'Mohammad GHORBANIYAN', currency: 'XBT', address: '1AjZPMsnmpdK2Rv9KQNfMurTXinscVro9V' },
    ]);
  });

  it('reads SDN.XML id entries of type "Digital Currency Address - …"; lists without addresses have none', () => {
    const xml = `<?xml version="1.0"?><sdnList xmlns="http://tempuri.org/sdnList.xsd"><publshInformation><Publish_Date>11/27/2026</Publish_Date></publshInformation>
      <sdnEntry><uid>29703</uid><firstName>Anton Nikolaeyvich</firstName><lastName>ANDREYEV</lastName><sdnType>Individual</sdnType>
        <programList><program>CYBER2</program></programList>
        <idList><id><uid>1</uid><idType>Passport</idType><idNumber>4005504207</idNumber></id>
          <id><uid>2</uid><idType>Digital Currency Address - ETH</idType><idNumber>0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c</idNumber></id>
          <id><uid>3</uid><idType>Digital Currency Address - USDT</idType><idNumber>TXyNpEbVRuYqsAXgEC2gCzGZWhhuxgsYHk</idNumber></id></idList>
      </sdnEntry></sdnList>`;
    const parsed = parseListFile('ofac-sdn', Buffer.from(xml));
    expect(parsed.addresses).toEqual([
      { entryId: '29703', entryName: 'Anton Nikolaeyvich ANDREYEV', currency: 'ETH', address: '0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c' },
      { entryId: '29703', entryName: 'Anton Nikolaeyvich ANDREYEV', currency: 'USDT', address: 'TXyNpEbVRuYqsAXgEC2gCzGZWhhuxgsYHk' },
    ]);
    expect(parseListFile('un', fixture('un/consolidated.xml')).addresses).toEqual([]);
  });

  it('looks up EVM and bech32 addresses whatever their case, base58 ones exactly', () => {
    expect(addressKey('0x7Db418b5D567A4e0E8c59Ad71BE1FcE48f3E6107')).toBe(addressKey('0x7db418b5d567a4e0e8c59ad71be1fce48f3e6107'));
    expect(addressKey('BC1QSMV6LKRW65L30YAZDQPDJJTWZPVK9F8GFH0CY7')).toBe('bc1qsmv6lkrw65l30yazdqpdjjtwzpvk9f8gfh0cy7');
    expect(addressKey('149w62rY42aZBox8fGcmqNsXUzSStKeq8C')).not.toBe(addressKey('149W62RY42AZBOX8FGCMQNSXUZSSTKEQ8C'));
  });
});
