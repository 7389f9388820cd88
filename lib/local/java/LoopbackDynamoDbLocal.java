import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Starts Amazon's DynamoDB Local listening on the loopback interface only. DynamoDB Local has no
 * option for its bind address (its Jetty connector listens on every interface), so this sets the
 * connector's host before the server starts. It also exits when its standard input closes, which
 * happens when the process that started it dies however it dies (even SIGKILL): DynamoDB Local
 * never outlives the service.
 *
 * Arguments are DynamoDB Local's own (-port, -dbPath, -sharedDb, -disableTelemetry).
 */
public final class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) {
      if (!(connector instanceof ServerConnector)) throw new IllegalStateException("unexpected connector " + connector);
      ((ServerConnector) connector).setHost("127.0.0.1");
    }
    proxy.start();
    System.out.println("listening on 127.0.0.1");
    // The parent holds the other end of stdin: end of input means it is gone.
    while (System.in.read() != -1) {
      // Nothing is ever sent; read until the pipe closes.
    }
    Runtime.getRuntime().halt(0);
  }
}
