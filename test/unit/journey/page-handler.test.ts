import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { journeyErrorPage } from '../../../functions/journey/page-handler.js';
import { refusalOf } from '../../../functions/journey/refusal-chrome.js';
import { ResumeAlreadyUsedError } from '../../../functions/journey/resume.js';

const presentation = { name: 'Nordbank', supportEmail: 'help@nordbank.example' };
const event = (method: string) =>
  ({ rawPath: '/journey/p1/resume', rawQueryString: 'r=secret&lang=de', headers: {}, requestContext: { http: { method } } }) as unknown as APIGatewayProxyEventV2;

describe('journeyErrorPage', () => {
  it("shows the relying party on the page of a link that proved itself, with the same link in each language", () => {
    const html = journeyErrorPage(410, event('GET'), refusalOf(new ResumeAlreadyUsedError(), { pages: { presentation } } as never));
    expect(html).toContain('<html lang="de">');
    expect(html).toContain('<span>Nordbank</span>');
    expect(html).toContain('Hilfe: help@nordbank.example');
    expect(html).toContain('<a href="/journey/p1/resume?r=secret&amp;lang=en" lang="en" hreflang="en">English</a>');
    // A post is not sent again by a link: no language switch.
    expect(journeyErrorPage(410, event('POST'), refusalOf(new ResumeAlreadyUsedError(), { pages: { presentation } } as never))).not.toContain('hreflang');
  });

  it('names nobody for a refusal it was not told the journey of', () => {
    expect(journeyErrorPage(410, event('GET'), new ResumeAlreadyUsedError())).not.toMatch(/<header|Nordbank|<footer/);
    expect(journeyErrorPage(404, event('GET'), refusalOf(new ResumeAlreadyUsedError(), { pages: undefined } as never))).not.toMatch(/<header|<footer/);
  });
});
