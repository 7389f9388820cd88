// asl-validator ships no type declarations; this is the part the tests use.
declare module 'asl-validator' {
  interface AslValidatorError {
    'Error code': string;
    Message: string;
  }
  interface AslValidatorResult {
    isValid: boolean;
    errors: AslValidatorError[];
    errorsText(separator?: string): string;
  }
  function aslValidator(definition: unknown, opts?: { checkPaths?: boolean; checkArn?: boolean }): AslValidatorResult;
  export = aslValidator;
}
