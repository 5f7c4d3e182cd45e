// Sign-in below the editor: the methods read from `initialize` and the text that names them.
// The runtime against the scripted agent's auth scenario: test/process/signIn.test.ts.
import * as assert from 'node:assert/strict';
import { AUTH_REQUIRED, describeMethod, isAuthRequired, parseAuthMethods, signInNeededText } from '../../src/auth/methods';
import { METHODS } from '../fixtures/authMethods';
import { nth } from '../support/helpers';

describe('sign-in methods', () => {
  it('reads agent, env_var and terminal methods with their defaults; unknown and malformed ones are left out', () => {
    const methods = parseAuthMethods([
      ...METHODS,
      { id: 'x', name: 'X', type: '_vendor' },
      { name: 'no id' },
      { id: 'e', name: 'E', type: 'env_var', vars: [] },
      { id: 'key', name: 'dup' },
    ]);
    assert.deepEqual(methods, [
      {
        type: 'env_var',
        id: 'key',
        name: 'API key',
        description: undefined,
        link: 'https://example.com/keys',
        vars: [
          { name: 'SCRIPTED_KEY', label: 'Key', secret: true, optional: false },
          { name: 'SCRIPTED_ORG', label: undefined, secret: false, optional: true },
        ],
      },
      { type: 'terminal', id: 'login', name: 'Log in', description: undefined, args: ['--login'], env: { LOGIN_MODE: '1' } },
      { type: 'agent', id: 'oauth', name: 'Browser', description: 'Opens a browser' },
    ]);
    assert.deepEqual(parseAuthMethods([{ id: 'old', name: 'Old', type: 'env_var', varName: 'OLD_KEY' }])[0], {
      type: 'env_var',
      id: 'old',
      name: 'Old',
      description: undefined,
      link: undefined,
      vars: [{ name: 'OLD_KEY', label: undefined, secret: true, optional: false }],
    });
    assert.deepEqual(parseAuthMethods(undefined), []);
  });

  it('names the methods in one sentence', () => {
    const text = signInNeededText('gemini', parseAuthMethods(METHODS));
    assert.equal(text, 'gemini needs you to sign in. Methods: API key (SCRIPTED_KEY, SCRIPTED_ORG); Log in (in a terminal); Browser.');
    assert.match(signInNeededText('x', []), /offers no sign-in method Reins can use/);
    assert.equal(describeMethod(nth(parseAuthMethods(METHODS), 1, 'the methods read')), 'Log in (in a terminal)');
    assert.ok(isAuthRequired({ code: AUTH_REQUIRED }) && !isAuthRequired({ code: -32603 }) && !isAuthRequired(undefined));
  });
});
