// DynamoDB Local on one address. Its jar has no option for the address (`-help` lists
// -port, -inMemory, -dbPath, -sharedDb, -cors, …) and listens on every interface through a
// Jetty `Server(port)`: anyone on the developer's network could read and write the table,
// unauthenticated. This builds the server with the factory the jar's own main uses, from the
// same arguments, then sets the address on its connector before starting it.
//
//   java -cp <compiled>:DynamoDBLocal.jar:DynamoDBLocal_lib/* DynamoDbLocalOnHost <address> <the jar's arguments…>
//
// Compiled once by local/dynamodb-local.ts with the JVM's own compiler module.
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.lang.reflect.Field;
import java.util.Arrays;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

final class DynamoDbLocalOnHost {
  public static void main(String[] args) throws Exception {
    String host = args[0];
    DynamoDBProxyServer proxy =
        ServerRunner.createServerFromCommandLineArgs(Arrays.copyOfRange(args, 1, args.length));
    // The Jetty server is a private field: no setter exists for its address.
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local built a server without a connector");
    for (Connector connector : connectors) ((ServerConnector) connector).setHost(host);
    proxy.start();
  }
}
