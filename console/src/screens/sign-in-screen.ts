import { h, show } from '../dom';
import { beginSignIn } from '../oidc';
import { app } from '../session';

/** The one screen without a session: a sign-in button, and why the last session ended if it did. */
export function signInScreen(problem?: string): void {
  document.getElementById('nav')!.hidden = true;
  show(
    h(
      'section',
      {},
      h('h1', {}, 'Sign in'),
      h('p', {}, 'Sign in, or create an account: a new account starts on the free plan with 100 requests for life.'),
      problem ? h('p', { class: 'problem', role: 'alert' }, problem) : null,
      h('button', { type: 'button', id: 'sign-in', onclick: () => void beginSignIn(app.config) }, 'Sign in or sign up'),
    ),
  );
}
