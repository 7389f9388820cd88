/**
 * Phone numbers of data forms are judged by libphonenumber's rules (awesome-phonenumber): a
 * national number is read in the form's default country, and kept in E.164 (+441234567890), one
 * spelling whatever was typed.
 *
 * The library is libphonenumber compiled with the metadata of every region, 338 KB minified:
 * more than a function's bundle budget by itself, and only a submission that holds a phone
 * number needs it. So it is a layer package (lib/bundling.ts LAYER_PACKAGES), loaded here at
 * the first such submission, from the layer of the routes that judge forms (their
 * `layerPackages`); the journey page and every other bundle carry none of it (the page's phone
 * hint reads calling-codes.ts).
 */
import type { ParsedPhoneNumber, PhoneNumberParseOptions } from 'awesome-phonenumber';

export type ParsePhoneNumber = (text: string, options?: PhoneNumberParseOptions) => ParsedPhoneNumber;

let loading: Promise<ParsePhoneNumber> | undefined;

/** libphonenumber's parser, loaded once per process at the first call. */
export function phoneNumberParser(): Promise<ParsePhoneNumber> {
  loading ??= import('awesome-phonenumber').then((m) => m.parsePhoneNumber);
  return loading;
}
