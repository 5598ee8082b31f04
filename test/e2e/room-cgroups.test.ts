import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { currentFleetOwner } from '../../local/fleet-owner';
import { endLeftoverRoomCgroups, RoomCgroups } from '../../local/room-cgroups';
import { processTreeAlive } from '../helpers/processes';

/**
 * The local fleet's per-server cgroups (local/room-cgroups.ts) with real processes, on a
 * Linux machine where a cgroup hierarchy is writable (as CI runs): what a `setsid` child
 * escapes (the process group) and what it cannot (the cgroup), and what a hostile game that
 * writes cgroup files cannot make the platform do.
 */
const started: number[] = [];

afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
});

/**
 * A stand-in for a sidecar and its game: a shell in its own process group that waits for a
 * line on stdin (as the sidecar waits for its key), then starts `sleep 600` in a new session
 * (setsid), prints its pid and sleeps itself.
 */
function daemonizingServer(): ChildProcess {
  // The pid is printed from inside the new session, so it has left the group once it is read.
  const child = spawn('sh', ['-c', "read go; setsid sh -c 'echo $$; exec sleep 600' & exec sleep 600"], {
    detached: true,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  started.push(child.pid as number);
  return child;
}

function grandchildOf(child: ChildProcess): Promise<number> {
  child.stdin?.end('go\n');
  return new Promise((resolve) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) {
        const pid = Number(out.trim());
        started.push(pid);
        resolve(pid);
      }
    });
  });
}

const cgroupLines = (pid: number) => readFileSync(`/proc/${pid}/cgroup`, 'utf8');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RoomCgroups', () => {
  const cgroups = RoomCgroups.forOwner(currentFleetOwner());

  it('finds a writable hierarchy on this machine', () => {
    expect(cgroups).toBeDefined();
  });

  it('holds a setsid grandchild that the process group lets go, and ends it with the cgroup', async () => {
    const server = daemonizingServer();
    const group = cgroups?.contain('room-setsid', server.pid as number);
    expect(group).toBeDefined();
    const grandchild = await grandchildOf(server);
    expect(cgroupLines(grandchild)).toContain(group?.path);

    process.kill(-(server.pid as number), 'SIGKILL'); // All a process group can do.
    await sleep(100);
    expect([processTreeAlive(server.pid as number), processTreeAlive(grandchild)]).toEqual([false, true]);

    await group?.end();
    expect(processTreeAlive(grandchild)).toBe(false);
    expect(existsSync(group?.directory as string)).toBe(false);
  });

  it('never kills a process older than the room that a game moved into its cgroup: it is moved out and keeps running', async () => {
    const older = spawn('sleep', ['600'], { stdio: 'ignore' });
    started.push(older.pid as number);
    await sleep(50); // Start times count in 10 ms ticks.
    const server = daemonizingServer();
    const group = cgroups?.contain('room-hostile', server.pid as number);
    const grandchild = await grandchildOf(server);
    // The hostile game (the same user, allowed to write cgroup files) adopts an older process.
    writeFileSync(`${group?.directory}/cgroup.procs`, String(older.pid));
    expect(cgroupLines(older.pid as number)).toContain(group?.path);

    await group?.end();
    process.stdout.write(
      `older process alive after the room's end: ${processTreeAlive(older.pid as number)}; the room's own: ${processTreeAlive(grandchild)}\n`,
    );
    expect(processTreeAlive(older.pid as number)).toBe(true);
    expect(cgroupLines(older.pid as number)).not.toContain(group?.path);
    expect([processTreeAlive(server.pid as number), processTreeAlive(grandchild)]).toEqual([false, false]);
    expect(existsSync(group?.directory as string)).toBe(false);
  });

  it("ends a dead platform's leftover cgroups (and what survived in them) and leaves a live platform's alone", async () => {
    const gone = spawn('true');
    await new Promise((resolve) => gone.once('exit', resolve));
    const deadOwner = RoomCgroups.forOwner(`${gone.pid}:1`);
    const leftover = daemonizingServer();
    const leftoverGroup = deadOwner?.contain('room-leftover', leftover.pid as number);
    const leftoverGrandchild = await grandchildOf(leftover);
    const live = daemonizingServer();
    const liveGroup = cgroups?.contain('room-live', live.pid as number);
    const liveGrandchild = await grandchildOf(live);

    expect(await endLeftoverRoomCgroups()).toBeGreaterThanOrEqual(1);
    expect([processTreeAlive(leftover.pid as number), processTreeAlive(leftoverGrandchild)]).toEqual([false, false]);
    expect(existsSync(leftoverGroup?.directory as string)).toBe(false);
    expect(existsSync(deadOwner?.directory as string)).toBe(false);
    expect([processTreeAlive(live.pid as number), processTreeAlive(liveGrandchild)]).toEqual([true, true]);

    await liveGroup?.end();
    cgroups?.removeIfEmpty();
    expect(existsSync(cgroups?.directory as string)).toBe(false);
  });
});
