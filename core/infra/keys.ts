/**
 * Every key of the single table is built here, so the item layout can be read in one place.
 *
 * | item            | pk              | sk                |
 * | --------------- | --------------- | ----------------- |
 * | room            | ROOM#<roomId>   | ROOM              |
 */
export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

export const keys = {
  room: (roomId: string): ItemKey => ({ pk: `ROOM#${roomId}`, sk: 'ROOM' }),
};
