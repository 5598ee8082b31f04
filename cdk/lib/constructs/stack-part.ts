import { createHash } from 'node:crypto';
import { Stack, type CfnElement } from 'aws-cdk-lib';
import { Construct, type IConstruct } from 'constructs';

/**
 * A part of a stack (its API, its queue consumers, its schedules): a construct that groups
 * resources without naming them. A `StackOfParts` leaves a part's id out of logical IDs, as
 * CDK leaves out an id of `Default`, and `pathInStack` leaves it out of the labels and names
 * built from paths; so moving resources into a part never renames, and so never replaces, a
 * deployed resource. Only the `aws:cdk:path` metadata shows the part.
 */
export abstract class StackPart extends Construct {}

/** The ids of the scopes from `construct`'s stack down to it, parts left out. */
export function pathInStack(construct: IConstruct): string[] {
  const scopes = construct.node.scopes;
  return scopes
    .slice(scopes.indexOf(Stack.of(construct)) + 1)
    .filter((scope) => !(scope instanceof StackPart))
    .map((scope) => scope.node.id);
}

/** A stack whose `StackPart`s do not count in logical IDs. */
export abstract class StackOfParts extends Stack {
  protected override allocateLogicalId(element: CfnElement): string {
    if (!element.node.scopes.some((scope) => scope instanceof StackPart)) return super.allocateLogicalId(element);
    return uniqueId(pathInStack(element));
  }
}

/**
 * CDK's logical ID of a path (makeUniqueId of aws-cdk-lib core/lib/private/uniqueid.ts, which
 * the package does not export): `Default` ids dropped, a lone id as is, else the ids (without
 * `Resource` and repeats) and 8 hex digits of the path's MD5. test/cdk/stack-parts.test.ts
 * checks it against CDK's own.
 */
function uniqueId(components: readonly string[]): string {
  const ids = components.filter((id) => id !== 'Default');
  const alphanumeric = (id: string) => id.replace(/[^A-Za-z0-9]/g, '');
  if (ids.length === 1 && alphanumeric(ids[0]!).length <= 255) return alphanumeric(ids[0]!);
  const hash = createHash('md5').update(ids.join('/')).digest('hex').slice(0, 8).toUpperCase();
  const human: string[] = [];
  for (const id of ids) if (human.length === 0 || !human[human.length - 1]!.endsWith(id)) human.push(id);
  return (
    human
      .filter((id) => id !== 'Resource')
      .map(alphanumeric)
      .join('')
      .slice(0, 240) + hash
  );
}
