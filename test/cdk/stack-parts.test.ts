import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { StackOfParts, StackPart, pathInStack } from '../../cdk/lib/constructs/stack-part';

class Part extends StackPart {}
class PartedStack extends StackOfParts {}

/** Paths of queues under the stack, including the ids CDK treats specially. */
const paths = [
  ['Queue'],
  ['Group', 'Queue'],
  ['Other', 'Default', 'Queue'],
  ['Resource', 'Queue-with.dashes'],
  ['MyQueue', 'Queue2'],
  ['TheQueue', 'Queue'],
  ['L'.repeat(130), 'M'.repeat(130)],
];

/** Queues at `paths` under `root`, with every intermediate scope a plain construct. */
function addQueues(root: Construct): void {
  for (const path of paths) {
    let scope = root;
    for (const id of path.slice(0, -1)) scope = (scope.node.tryFindChild(id) as Construct) ?? new Construct(scope, id);
    new sqs.Queue(scope, path[path.length - 1]!);
  }
}

describe('stack parts', () => {
  it('give their resources the logical IDs CDK gives the same resources outside any part', () => {
    const app = new App();
    const plain = new Stack(app, 'Plain');
    addQueues(plain);
    const parted = new PartedStack(app, 'Parted');
    addQueues(new Part(new Part(parted, 'Outer'), 'Inner'));

    const ids = (stack: Stack) => Object.keys(Template.fromStack(stack).toJSON().Resources as object).sort();
    expect(ids(parted)).toEqual(ids(plain));
    const queue = parted.node.findAll().find((c) => c instanceof sqs.Queue && c.node.id === 'Queue2')!;
    expect(pathInStack(queue)).toEqual(['MyQueue', 'Queue2']);
  });
});
