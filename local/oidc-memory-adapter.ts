/** What oidc-provider keeps of one model instance (a session, a grant, an interaction, a code). */
type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string; consumed?: number };

/**
 * The local issuer's storage for oidc-provider: sessions, grants, interactions and codes in the
 * process's memory, dropped when `npm start` stops, so a restart signs everyone out of the local
 * issuer (docs/console.md). A documented choice for a sign-in page that is local by design; given
 * explicitly, it also spares `npm start` oidc-provider's warning about its own quick-start adapter.
 * One store per issuer, so two services in one process never share a session.
 */
export function memoryAdapterFactory(now: () => number): new (name: string) => object {
  const store = new Map<string, { payload: Payload; expiresAt: number | undefined }>();
  const live = (key: string): Payload | undefined => {
    const entry = store.get(key);
    if (entry && entry.expiresAt !== undefined && entry.expiresAt <= now()) store.delete(key);
    return store.get(key)?.payload;
  };

  return class MemoryAdapter {
    constructor(private readonly name: string) {}

    private key(id: string): string {
      return `${this.name}:${id}`;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      store.set(this.key(id), { payload, expiresAt: expiresIn ? now() + expiresIn * 1000 : undefined });
    }

    async find(id: string): Promise<Payload | undefined> {
      return live(this.key(id));
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      return this.findWhere((payload) => payload.uid === uid);
    }

    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      return this.findWhere((payload) => payload.userCode === userCode);
    }

    async consume(id: string): Promise<void> {
      const payload = live(this.key(id));
      if (payload) payload.consumed = Math.floor(now() / 1000);
    }

    async destroy(id: string): Promise<void> {
      store.delete(this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      for (const [key, entry] of store) if (entry.payload.grantId === grantId) store.delete(key);
    }

    private findWhere(test: (payload: Payload) => boolean): Payload | undefined {
      for (const key of store.keys()) {
        if (!key.startsWith(`${this.name}:`)) continue;
        const payload = live(key);
        if (payload && test(payload)) return payload;
      }
      return undefined;
    }
  };
}
