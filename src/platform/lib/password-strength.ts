import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as en from '@zxcvbn-ts/language-en';

/**
 * How guessable a new password is, by zxcvbn (@zxcvbn-ts): common passwords, dictionary words,
 * repeats, sequences, keyboard walks and the person's own email all count against it. Scores run
 * 0 (trivial) to 4; below `STRENGTH_SCORE_MIN` a password is refused.
 */
const STRENGTH_SCORE_MIN = 3;

let estimator: ZxcvbnFactory | undefined;

/** Built at first use: the dictionaries are large and most processes never set a password. */
function zxcvbn(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...en.dictionary },
    graphs: common.adjacencyGraphs,
    translations: en.translations,
  });
  return estimator;
}

/** Why the password is too easy to guess (with a hint), or undefined when it is strong enough. */
export function passwordWeakness(password: string, userInputs: readonly string[]): string | undefined {
  const result = zxcvbn().check(password, [...userInputs]);
  if (result.score >= STRENGTH_SCORE_MIN) return undefined;
  const hints = [result.feedback.warning, ...result.feedback.suggestions].filter((hint): hint is string => Boolean(hint));
  return ['The password is too easy to guess.', ...hints, 'A passphrase of a few unrelated words is good.'].join(' ');
}
