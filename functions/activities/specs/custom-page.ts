import { key, stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'CUSTOM_PAGE',
  displayName: 'Custom Page',
  kind: 'user',
  description:
    "Shows one of the relying party's own pages (a custom page uploaded with /api/theme-server/customPages, by name and version) " +
    'inside the journey page, framed from the pages origin. The page gets the step\'s Constants and Session Data when it says it is ' +
    'READY, and what it SENDs is kept as text under `_customUis.{Custom Page Key}.currentCapture.customPageParameters.{name}.value`, ' +
    "where gateways, cloud functions and the user data API read it. See docs/custom-pages.md, \"In a journey\".",
  inputs: [
    {
      name: 'Custom Page Name',
      type: 'S',
      required: true,
      description: 'The name of a custom page of the tenant (any status but ARCHIVED when a version is given).',
      family: { name: 'customPageName' },
    },
    {
      name: 'Custom Page Version',
      type: 'I',
      required: false,
      min: 1,
      description: 'Its version; empty: the latest DEPLOYED_ACTIVE version when the step starts.',
      family: { name: 'customPageVersion' },
    },
    { ...key('Custom Page Key', 'customPage1', 'Where what the page sends is kept: `_customUis.{Custom Page Key}`.'), family: { name: 'customPageKey' } },
    {
      name: 'Session Data',
      type: 'M',
      required: false,
      template: true,
      description:
        'What the page gets as `sessionData`: each value an expression evaluated when the step starts. A value that is one whole ' +
        '`${...}` keeps its type (`${idv}` arrives as an object, `${attempt + 1}` as a number); text with expressions in it is text.',
      family: { name: 'sessionData' },
    },
    {
      name: 'Constants',
      type: 'M',
      required: false,
      description: 'What the page gets as `constants`, with `baseUrl`, `language`, `screenId`, `screens` and `timeoutInSeconds` added.',
      family: { name: 'constants' },
    },
    stepTimeout,
  ],
  rules: [],
  outputs: [
    {
      name: 'Custom page data',
      variable: 'vars._customUis.{Custom Page Key}',
      description: '`currentCapture.customPageParameters.{name}.value` (text) for each variable the page sent, and `currentCapture.capturedAt`.',
    },
  ],
  errorEvents: [],
  failures: ['CustomPageNotFound', 'CustomPageArchived', 'CustomPageHasNoFiles', 'CustomPageSessionDataInvalid'],
  family: { displayName: 'Custom Page', palette: 'CPG01', beans: ['customPageV1'], endBean: 'customPageEndV1' },
} as const satisfies ActivitySpec;
