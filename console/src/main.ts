import { ApiFailure, isAllowanceExhausted } from './api';
import { autoRefresh } from './auto-refresh';
import { h, show } from './dom';
import { beginSignIn, claims, completeSignIn, signOutUrl, wasSignedIn, type ConsoleConfig } from './oidc';
import { inboxScreen } from './screens/inbox-screen';
import { inboxesScreen } from './screens/inboxes-screen';
import { keysScreen } from './screens/keys-screen';
import { messageScreen } from './screens/message-screen';
import { signInScreen } from './screens/sign-in-screen';
import { moreRequests, usageScreen } from './screens/usage-screen';
import { app, session } from './session';

/**
 * The route table: the first segment of the hash names the screen, the second its id. Screens
 * that need an id fall back to the usage screen without one, as an unknown hash does.
 */
const routes: Record<string, (id: string | undefined) => Promise<void>> = {
  usage: () => usageScreen(),
  keys: () => keysScreen(),
  inboxes: () => inboxesScreen(),
  inbox: (id) => (id ? inboxScreen(id) : usageScreen()),
  message: (id) => (id ? messageScreen(id) : usageScreen()),
};

async function boot(): Promise<void> {
  app.config = (await (await fetch('config.json', { cache: 'no-store' })).json()) as ConsoleConfig;
  app.route = route;
  document.getElementById('sign-out')!.addEventListener('click', () => {
    session.token = undefined;
    session.key = undefined;
    // The issuer's session ends too: otherwise the next "Sign in" lands in this account unasked.
    void signOutUrl(app.config).then((url) => location.assign(url));
  });
  window.addEventListener('hashchange', () => {
    autoRefresh.stop();
    void route();
  });
  try {
    session.token = await completeSignIn(app.config);
    if (session.token) {
      const { iat, exp } = claims(session.token);
      session.endsAt = performance.now() + (Number(exp) - Number(iat)) * 1000;
    }
  } catch (error) {
    return signInScreen((error as Error).message);
  }
  if (!session.token && wasSignedIn()) {
    // A reload: the token went with the page; the issuer's own session restores it, without a prompt.
    show(h('p', { role: 'status' }, 'Restoring your session…'));
    return beginSignIn(app.config, true);
  }
  if (!session.token) return signInScreen();
  await route();
}

/** Shows the screen the hash names, or why it cannot: an ended session, a used-up allowance, a failure. */
async function route(): Promise<void> {
  if (!session.token) return signInScreen();
  if (!(performance.now() < (session.endsAt ?? 0))) return signInScreen('Your session ended. Sign in again.');
  document.getElementById('nav')!.hidden = false;
  try {
    const [view, id] = location.hash.slice(1).split('/');
    return await (routes[view ?? ''] ?? routes.usage!)(id);
  } catch (error) {
    if (error instanceof ApiFailure && error.failure.status === 401 && !location.hash.startsWith('#inbox') && !location.hash.startsWith('#message')) {
      return signInScreen('Your session ended. Sign in again.');
    }
    const exhausted = isAllowanceExhausted(error);
    show(
      h('p', { class: 'problem', role: 'alert' }, error instanceof Error ? error.message : 'Something failed.'),
      exhausted ? moreRequests() : null,
      h('a', { href: '#usage' }, exhausted ? 'See your usage' : 'Back'),
    );
  }
}

void boot();
