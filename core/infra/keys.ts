/**
 * Every key of the single table is built here, so the item layout can be read in one place.
 *
 * | item                   | pk                     | sk                 |
 * | ---------------------- | ---------------------- | ------------------ |
 * | room                   | ROOM#<roomId>          | ROOM               |
 * | member / reservation   | ROOM#<roomId>          | MEMBER#<account>   |
 * | registration key       | ROOM#<roomId>          | KEY#<sha256(key)>  |
 * | processed request      | ROOM#<roomId>          | REQUEST#<corrId>   |
 * | game configuration     | GAME#<gameId>          | VERSION#<version>  |
 */
export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

const roomPk = (roomId: string) => `ROOM#${roomId}`;

export const keys = {
  room: (roomId: string): ItemKey => ({ pk: roomPk(roomId), sk: 'ROOM' }),
  member: (roomId: string, account: string): ItemKey => ({ pk: roomPk(roomId), sk: `MEMBER#${account}` }),
  registrationKey: (roomId: string, keyHash: string): ItemKey => ({ pk: roomPk(roomId), sk: `KEY#${keyHash}` }),
  processedRequest: (roomId: string, correlationId: string): ItemKey => ({
    pk: roomPk(roomId),
    sk: `REQUEST#${correlationId}`,
  }),
  gameConfiguration: (gameId: string, version: string): ItemKey => ({ pk: `GAME#${gameId}`, sk: `VERSION#${version}` }),
};
