import { gameLaunch } from '../../../../containers/controller/game-environment';
import { sidecarEnvironmentSchema } from '../../../../core/gameservers/sidecar-environment';

const env = sidecarEnvironmentSchema.parse({
  ROOM_ID: 'room-1',
  CONTROLLER_REQUEST_QUEUE_URL: 'https://sqs/requests.fifo',
  REPLY_QUEUE_PREFIX: 'reply-',
  GAME_BINARY: '/games/server',
  GAME_ARGS: '["--mode","duel"]',
  GAME_PORTS: '38001,38002',
  GAME_ENV: '{"TICK":"20","login_access_token":"not-this-one","room_id":"not-this-one","PATH":"/game/bin"}',
  GAME_MAX_PLAYERS: '8',
  ROOM_SETTINGS: '{"map":"harbor"}',
  SERVER_SETTINGS: '{"tick":20}',
  DISCOVERY_SERVICES: '{"login":"https://login"}',
  LOGIN_ACCESS_TOKEN: 'server-token',
});

describe('gameLaunch', () => {
  const launch = gameLaunch(env, 'ipc:///tmp/x/game.sock', {
    PATH: '/usr/bin',
    HOME: '/home/sidecar',
    LANG: 'C.UTF-8',
    AWS_SECRET_ACCESS_KEY: 'sidecar-secret',
    SQS_ENDPOINT: 'http://127.0.0.1:9324',
  });

  it('starts <binary> <endpoint> <ports> <args…>', () => {
    expect([launch.command, ...launch.args]).toEqual([
      '/games/server',
      'ipc:///tmp/x/game.sock',
      '38001,38002',
      '--mode',
      'duel',
    ]);
  });

  it('sets exactly the protocol variables, the configured ones and PATH/HOME/LANG', () => {
    expect(launch.env).toEqual({
      PATH: '/game/bin',
      HOME: '/home/sidecar',
      LANG: 'C.UTF-8',
      TICK: '20',
      room_id: 'room-1',
      login_access_token: 'server-token',
      discovery_services: '{"login":"https://login"}',
      game_max_players: '8',
      room_settings: '{"map":"harbor"}',
      server_settings: '{"tick":20}',
    });
  });
});
