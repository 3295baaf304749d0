import { h } from './dom';

/**
 * The optional auto-refresh of an inbox: one look every `seconds` while the tab is visible, none
 * while it is hidden or once the view is left (each look is a charged request).
 */
export const autoRefresh = {
  seconds: 10,
  timer: undefined as ReturnType<typeof setInterval> | undefined,
  look: undefined as (() => Promise<unknown>) | undefined,
  start(look: () => Promise<unknown>): void {
    this.stop();
    this.look = look;
    if (document.visibilityState === 'visible') this.timer = setInterval(() => void look().catch(showFailure), this.seconds * 1000);
  },
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.look = undefined;
  },
  pause(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  },
};
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'visible') autoRefresh.pause();
  else if (autoRefresh.look && !autoRefresh.timer) autoRefresh.start(autoRefresh.look);
});

export function showFailure(error: unknown): void {
  autoRefresh.stop();
  document.getElementById('listing')?.append(h('p', { class: 'problem', role: 'alert' }, error instanceof Error ? error.message : 'Something failed.'));
}
