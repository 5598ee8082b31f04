import { asksForArbiter } from '../../../../core/rooms/session-model';
import { templateBodySchema } from '../../../../core/templates/template-schema';

const body = (constants: Record<string, unknown>) => ({ constants: { visibility: 'open', ...constants } });
const issues = (constants: Record<string, unknown>) => {
  const parsed = templateBodySchema.safeParse(body(constants));
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('template constants: capabilities large', () => {
  it('allows up to 1,000 members with large, at most 100 without', () => {
    expect(issues({ maxMembers: 1_000, capabilities: ['large'] })).toEqual([]);
    expect(issues({ maxMembers: 100 })).toEqual([]);
    expect(issues({ maxMembers: 101 })).toEqual([expect.stringMatching(/^constants\.maxMembers: must be at most 100/)]);
    expect(issues({ maxMembers: 1_001, capabilities: ['large'] })).toHaveLength(1);
  });

  it('refuses an arbiter with large, saying why', () => {
    expect(issues({ maxMembers: 500, capabilities: ['large'], migrateHost: true, hostTimeoutMs: 5_000 })).toEqual([
      expect.stringMatching(/^constants\.migrateHost: cannot be true with the capability large \(.*member list/),
      expect.stringMatching(/^constants\.hostTimeoutMs: cannot be set with the capability large/),
    ]);
  });

  it('accepts an explicit migrateHost false with large: it asks for no arbiter', () => {
    expect(issues({ maxMembers: 500, capabilities: ['large'], migrateHost: false })).toEqual([]);
    expect(asksForArbiter({ capabilities: ['large'], migrateHost: false })).toBe(false);
  });
});
