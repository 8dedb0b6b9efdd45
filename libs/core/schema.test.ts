import Joi from 'joi';
import { P, type InferShape } from './schema';

const spec = {
  id: P.int().required(),
  name: P.string(),
  flag: P.bool().default(true),
  kind: P.oneOf('a', 'b'),
  items: P.array(P.object({ x: P.int().required(), y: P.string() })).required(),
  note: P.jsonOrText(P.string()).nullable(),
};

// Compile-time: the inferred type is exactly what a hand-written one would say.
type Expected = {
  id: number;
  name?: string;
  flag: boolean;
  kind?: 'a' | 'b';
  items: { x: number; y?: string }[];
  note?: string | null;
};
const forth = (v: InferShape<typeof spec>): Expected => v;
const back = (v: Expected): InferShape<typeof spec> => v;

describe('P', () => {
  it('infers the validated shape', () => {
    const schema = Joi.object(
      Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, v.schema])),
    );
    const { value } = schema.validate({ id: 1, items: [{ x: 2 }], note: null });
    expect(forth(back(value as Expected))).toEqual({
      id: 1,
      flag: true,
      items: [{ x: 2 }],
      note: null,
    });
  });

  it('builds the Joi schema one would write by hand', () => {
    const built = P.array([P.int(), P.string(Joi.string())], { max: 2 }).default([]).schema;
    const byHand = Joi.array().items(Joi.number().integer(), Joi.string()).max(2).default([]);
    expect(built.describe()).toEqual(byHand.describe());
    expect(P.json(P.int()).encoding).toBe('json');
    expect(P.array(P.int()).encoding).toBe('json');
    expect(P.int().encoding).toBe('text');
  });

  it.each([
    Joi.number().integer().required(),
    Joi.number().integer().default(1),
    Joi.number().integer().allow(null),
  ])('refuses presence, defaults and null inside the Joi schema (%#)', (schema) => {
    expect(() => P.int(schema)).toThrow('declare presence, defaults and null');
  });
});
