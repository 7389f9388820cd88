/**
 * On AWS a function learns the pages origin only where its route says so (lib/constructs/
 * route-function.ts): every route whose answer carries a page's URLs must say it, or its reads
 * fail there with PAGES_ORIGIN unset (locally every function has it, so only this catches it).
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { routeList } from '../../../functions/routes.js';

describe('the routes that answer with a custom page URL', () => {
  it('each name the pages origin (aws.pages or aws.pagesOrigin)', () => {
    const answering = routeList.filter((r) =>
      Object.entries(r.responses).some(([status, def]) => Number(status) < 300 && def.schema && JSON.stringify(z.toJSONSchema(def.schema as z.ZodType, { io: 'output', unrepresentable: 'any' })).includes('"previewUrl"')),
    );
    expect(answering.map((r) => r.operationId)).toContain('getCustomPage');
    for (const r of answering) expect(Boolean(r.aws.pages?.length || r.aws.pagesOrigin), r.operationId).toBe(true);
  });
});
