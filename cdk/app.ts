import { App } from 'aws-cdk-lib';
import { addRoomkeeper } from './lib/roomkeeper-app';

const app = new App();
addRoomkeeper(app);
app.synth();
