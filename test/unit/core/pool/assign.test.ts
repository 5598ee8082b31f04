import { assignThroughSidecar, type AssignAnswers } from '../../../../core/pool/assign';

const assignment = { roomId: 'room-1', settings: { map: 'harbor' }, maxPlayers: 4 };

function setup(delivered: 'delivered' | 'gone') {
  const events: string[] = [];
  let take: () => void = () => undefined;
  const answers: AssignAnswers = async (roomId, commandId) => {
    events.push(`poll ${roomId} ${commandId}`);
    return { kind: 'answered', result: { status: 'OK' } };
  };
  const assign = assignThroughSidecar({
    deliver: (roomId, command) => {
      events.push(`send ${roomId} ${command.commandId}`);
      return new Promise((resolve) => (take = () => resolve(delivered)));
    },
    answers,
    newId: () => 'assign-1',
  });
  return { assign, events, take: () => take() };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('assignThroughSidecar', () => {
  it('starts the long poll for the answer only once SQS has taken the assign', async () => {
    const { assign, events, take } = setup('delivered');
    const outcome = assign(assignment);
    await settle();
    expect(events).toEqual(['send room-1 assign-1']);
    take();
    expect(await outcome).toEqual({ accepted: true });
    expect(events).toEqual(['send room-1 assign-1', 'poll room-1 assign-1']);
  });

  it('polls for nothing when the sidecar has ended', async () => {
    const { assign, events, take } = setup('gone');
    const outcome = assign(assignment);
    take();
    expect(await outcome).toEqual({ accepted: false, detail: 'its sidecar has ended' });
    expect(events).toEqual(['send room-1 assign-1']);
  });
});
