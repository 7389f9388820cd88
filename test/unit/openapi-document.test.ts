import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { routeList } from '../../functions/routes.js';
import { buildOpenApiDocument } from '../../functions/platform/openapi-document.js';

type Json = Record<string, any>;
const doc = buildOpenApiDocument(routeList) as Json;
const text = JSON.stringify(doc);

/** Every schema node of the document (examples left out), with where it is. */
function* nodes(node: unknown, at = '#'): Generator<[string, Json]> {
  if (Array.isArray(node)) for (const [i, n] of node.entries()) yield* nodes(n, `${at}/${i}`);
  else if (node && typeof node === 'object') {
    yield [at, node as Json];
    for (const [k, v] of Object.entries(node)) if (k !== 'examples' && k !== 'example') yield* nodes(v, `${at}/${k}`);
  }
}

describe('buildOpenApiDocument', () => {
  it('is valid OpenAPI 3.1, its examples valid against their schemas (Redocly)', { timeout: 60_000 }, async () => {
    const config = await createConfig({
      extends: ['minimal'],
      rules: {
        struct: 'error',
        'no-unresolved-refs': 'error',
        'operation-operationId-unique': 'error',
        'path-parameters-defined': 'error',
        'no-undefined-server-variable': 'error',
        'no-invalid-media-type-examples': 'error',
        'no-invalid-parameter-examples': 'error',
        'no-invalid-schema-examples': 'error',
      },
    } as Parameters<typeof createConfig>[0]);
    const problems = await lintFromString({ source: text, absoluteRef: '/openapi.json', config });
    expect(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
  });

  it('carries none of what zod adds: no ±2^53-1 integer bounds, no regex beside a format, no string propertyNames', () => {
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    const leaks = [...nodes(doc)].filter(([, n]) => (n.format && n.pattern) || JSON.stringify(n.propertyNames) === '{"type":"string"}').map(([at]) => at);
    expect(leaks).toEqual([]);
  });

  it('lists the local runtime first, then the AWS form, each with its variables', () => {
    expect(doc.servers[0]).toMatchObject({ url: 'http://{tenantId}.fir.localhost:{port}', variables: { tenantId: { default: 'demo' }, port: { default: '8080' } } });
    expect(doc.servers[1]).toMatchObject({ url: 'https://{tenantId}.{region}.{serviceDomain}', variables: { region: { enum: ['fir', 'gum', 'oak'] } } });
  });

  it('types a member the same wherever it is: versions are integers, instance statuses one enum', () => {
    const versions = [...nodes(doc)].flatMap(([at, n]) =>
      Object.entries((n.properties ?? {}) as Record<string, Json>)
        .filter(([name, s]) => name === 'processDefnVersion' && s.type !== undefined && s.type !== 'integer' && !String(s.type).includes('string'))
        .map(([name]) => `${at}/${name}`),
    );
    expect(versions).toEqual([]);
    const schemas = doc.components.schemas;
    expect(schemas.UserData.properties.status.enum).toEqual(schemas.ProcessInstance.properties.status.enum);
  });

  it("documents a check's moreinfo as a JSON document in a string", () => {
    const moreinfo = doc.components.schemas.CheckResponse.properties.moreinfo;
    expect(moreinfo).toMatchObject({ type: 'string', contentMediaType: 'application/json', contentSchema: { type: 'object' } });
    const example = doc.paths['/api/userdata-server/processDefinitions/{processDefnId}/processInstances/{processInstanceId}/userdata'].get.responses[200].content['application/json'].examples.getUserData.value;
    expect(JSON.parse(example.checks[0].moreinfo)).toMatchObject({ liveness: { result: 'PASS' } });
  });
});
