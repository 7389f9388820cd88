import { describe, expect, it } from 'vitest';
import { figuresOf, valueText } from '../../../functions/console/client/figures.js';

describe('figuresOf', () => {
  it("flattens a check's moreinfo into labelled figures, rounding fractions", () => {
    const moreinfo = JSON.stringify({ engine: 'embedded', faceCount: 1, face: { pose: { yaw: -0.41234567 } }, liveness: { result: 'PASS' }, thresholds: { brightness: [25, 75] } });
    expect(figuresOf(moreinfo)).toEqual([
      ['engine', 'embedded'],
      ['faceCount', '1'],
      ['face.pose.yaw', '-0.4123'],
      ['liveness.result', 'PASS'],
      ['thresholds.brightness', '25, 75'],
    ]);
  });

  it('numbers the members of a list of objects', () => {
    expect(figuresOf(JSON.stringify({ matches: [{ similarity: 0.9 }, { similarity: 0.5 }] }))).toEqual([
      ['matches[0].similarity', '0.9'],
      ['matches[1].similarity', '0.5'],
    ]);
  });

  it('shows a moreinfo that is not JSON as its text, and nothing when there is none', () => {
    expect(figuresOf('plain words')).toEqual([['moreinfo', 'plain words']]);
    expect(figuresOf(undefined)).toEqual([]);
  });
});

describe('valueText', () => {
  it('writes form values as text', () => {
    expect(valueText('Ann')).toBe('Ann');
    expect(valueText(true)).toBe('true');
    expect(valueText(null)).toBe('–');
    expect(valueText({ a: 1 })).toBe('{"a":1}');
  });
});
