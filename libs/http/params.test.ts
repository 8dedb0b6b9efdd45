import Joi from 'joi';
import { ApiError } from '../core/errors';
import { httpStatus } from './error-handler';
import { P } from '../core/schema';
import { parseParams } from './params';

const spec = {
  name: P.string(Joi.string().max(5)).required(),
  count: P.int(),
  flag: P.bool(),
  ids: P.array(P.int()),
  to: P.jsonOrText(P.alternatives(P.int(), P.string(Joi.string()), P.array(P.int()))),
  op: P.oneOf('add', 'remove'),
};

function error(input: Record<string, unknown>): ApiError {
  try {
    parseParams(spec, input);
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected a validation error');
}

describe('parseParams', () => {
  it('reads integers and booleans from text and lists from JSON text', () => {
    const { values, ignored } = parseParams(spec, {
      name: 'abc',
      count: '12',
      flag: 'true',
      ids: '[1, 2]',
      to: '[3]',
      other: 'x',
    });
    expect(values).toEqual({ name: 'abc', count: 12, flag: true, ids: [1, 2], to: [3] });
    expect(ignored).toEqual(['other']);
  });

  it('keeps non-JSON text for parameters that may be either', () => {
    expect(parseParams(spec, { name: 'a', to: 'Denmark' }).values).toMatchObject({ to: 'Denmark' });
    expect(parseParams(spec, { name: 'a', to: '7' }).values).toMatchObject({ to: 7 });
  });

  it.each([
    [{}, 400, 'REQUEST_VARIABLE_MISSING', "Missing 'name' argument"],
    [{ name: 'a', count: 'x' }, 400, 'BAD_REQUEST', 'count is not an integer'],
    [{ name: 'a', count: '1.5' }, 400, 'BAD_REQUEST', 'count is not an integer'],
    [{ name: 'a', flag: 'perhaps' }, 400, 'BAD_REQUEST', 'flag is not a boolean'],
    [{ name: 'a', ids: '[1,' }, 400, 'BAD_REQUEST', 'Argument "ids" is not valid JSON.'],
    [{ name: 'a', ids: '{"a":1}' }, 400, 'BAD_REQUEST', 'ids is not a list'],
    [{ name: 'a', ids: '[1, "x"]' }, 400, 'BAD_REQUEST', 'ids[1] is not an integer'],
    [{ name: 'toolong' }, 400, 'BAD_REQUEST', 'name is too long (limit: 5 characters)'],
    [{ name: 'a', op: 'toggle' }, 400, 'BAD_REQUEST', 'Invalid op'],
  ])('refuses %j', (input, status, code, msg) => {
    const err = error(input);
    expect(err).toBeInstanceOf(ApiError);
    expect(httpStatus(err)).toBe(status);
    expect(err.toJSON()).toMatchObject({ result: 'error', code, msg });
  });

  it('names the missing variable', () => {
    expect(error({}).toJSON()).toEqual({
      result: 'error',
      msg: "Missing 'name' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'name',
    });
  });
});
